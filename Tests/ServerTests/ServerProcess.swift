import Foundation
import TestSupport

/// A real `mediad serve` on an ephemeral port with its own data directory, for tests that talk to it
/// with curl. Stopped (SIGKILL) when released if still running.
final class ServerProcess: @unchecked Sendable {
    // Mutated only by the test that owns it, from one task.
    let dataDirectory: String
    let extraArguments: [String]
    let environment: [String: String]
    /// Where the server's stderr (its log) goes; nil passes it through to the test's stderr.
    let logFile: String?
    private(set) var process: Process
    private(set) var port = 0
    private let ownsDirectory: Bool
    /// Open-file limit the server starts under (`prlimit --nofile`), if not the test's own.
    let descriptorLimit: Int?
    /// The `mediad` binary run: `binary` unless the test installed a copy elsewhere.
    let executable: String

    static var binary: String {
        if let configured = ProcessInfo.processInfo.environment["MEDIAD_BIN"] { return configured }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/mediad").path
    }

    /// Starts a server; `dataDirectory` nil makes a fresh temporary one (removed at release).
    init(
        dataDirectory: String? = nil, _ arguments: [String] = [], environment: [String: String] = [:],
        logFile: String? = nil, descriptorLimit: Int? = nil, executable: String = ServerProcess.binary
    ) throws {
        self.descriptorLimit = descriptorLimit
        self.executable = executable
        if let dataDirectory {
            self.dataDirectory = dataDirectory
            ownsDirectory = false
        } else {
            self.dataDirectory =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "mediad-server-\(UUID().uuidString.prefix(8))"
                ).path
            ownsDirectory = true
        }
        extraArguments = arguments
        self.environment = environment
        self.logFile = logFile
        process = Process()
        try launch()
    }

    /// The server's process id, e.g. to find its job workers (`pgrep -P`).
    var pid: Int32 { process.processIdentifier }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func url(_ path: String) -> String { baseURL + path }

    /// Starts (again) on the same data directory, on `port` (0: a new one the kernel picks).
    func launch(port: Int = 0) throws {
        process = Process()
        let serve = ["serve", "--port", String(port), "--data-dir", dataDirectory] + extraArguments
        if let descriptorLimit {
            // prlimit sets the limit and then becomes the server (exec), so the pid is the server's.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(descriptorLimit):\(descriptorLimit)", "--", executable] + serve
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = serve
        }
        // A line per request would bury the test output; tests that read the log ask for a file and a level.
        let quiet = logFile == nil ? ["MEDIAD_LOG_LEVEL": "warning"] : [:]
        process.environment = ProcessInfo.processInfo.environment.merging(quiet) { $1 }.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        if let logFile {
            if !FileManager.default.fileExists(atPath: logFile) {
                _ = FileManager.default.createFile(atPath: logFile, contents: nil)
            }
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
            try log.seekToEnd()
            process.standardError = log
        } else {
            process.standardError = FileHandle.standardError
        }
        try process.run()
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = reader.readData(ofLength: 1)
            guard !byte.isEmpty else { throw StartFailure(message: "mediad serve exited before listening") }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let portText = text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines),
            let port = Int(portText)
        else { throw StartFailure(message: "mediad serve printed no port: \(text)") }
        self.port = port
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The server's resident memory in KiB (`VmRSS`) or its peak (`VmHWM`).
    func memoryKiB(_ field: String = "VmRSS") -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    struct StartFailure: Error {
        var message: String
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}
