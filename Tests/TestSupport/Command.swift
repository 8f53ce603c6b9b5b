import Foundation

/// Runs an external program (the ffmpeg/ffprobe oracle, the mediad binary) and captures its output.
public struct Command {
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` and waits for it.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], allowFailure: Bool = false) throws -> Output {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errData = LockedData()
        let errReader = Thread {
            errData.set(errPipe.fileHandleForReading.readDataToEndOfFile())
        }
        errReader.start()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { usleep(1000) }
        let output = Output(
            status: process.terminationStatus, stdout: out, stderr: String(decoding: errData.value, as: UTF8.self))
        if !allowFailure && output.status != 0 {
            throw CommandError(command: ([executable] + arguments).joined(separator: " "), output: output)
        }
        return output
    }
}

public struct CommandError: Error, CustomStringConvertible {
    public var command: String
    public var output: Command.Output
    public var description: String { "`\(command)` exited \(output.status): \(output.stderr.suffix(2000))" }
}

private final class LockedData: @unchecked Sendable {
    // A lock guards both fields; the reader thread writes once and the caller polls.
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ value: Data) {
        lock.withLock {
            data = value; done = true
        }
    }
    var isSet: Bool { lock.withLock { done } }
    var value: Data { lock.withLock { data } }
}
