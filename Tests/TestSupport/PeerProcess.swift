import Foundation

/// A helper server the tests talk to (Python's http.server, SeaweedFS), started as a child process that
/// prints its port as its first line, and stopped by its PID with `stop()` (or when released).
public final class PeerProcess: @unchecked Sendable {
    // Immutable after init; `stop()` is called from the test's thread only.
    private let process = Process()
    public let port: Int

    /// Runs `executable` (looked up on PATH) with `arguments`; its stderr goes to `logFile` when given.
    public init(_ executable: String, _ arguments: [String], logFile: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        if let logFile {
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        var line = Data()
        let reader = output.fileHandleForReading
        while true {
            let byte = reader.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)) else {
            process.terminate()
            throw PeerError(message: "\(executable) did not print its port: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
    }

    /// A Python script of `Tests/ServerTests/Peers/`, run with `arguments` (the peers live beside the server
    /// tests, which use most of them; the object storage tests share the S3 one).
    public static func script(_ name: String, _ arguments: [String], logFile: String? = nil) throws -> PeerProcess {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ServerTests/Peers/" + name)
        return try PeerProcess("python3", [path.path] + arguments, logFile: logFile)
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// The peer's process id (its own children, such as SeaweedFS's `weed`, are found from it).
    public var pid: Int32 { process.processIdentifier }

    /// Kills the peer (SIGKILL: a child inherits the test process's signal mask, in which SIGTERM may be
    /// blocked) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    public struct PeerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
