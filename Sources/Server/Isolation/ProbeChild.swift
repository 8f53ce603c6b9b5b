import Foundation
import MediaCore
import Synchronization

/// Probes an uploaded file in a child process (`mediad probe --json`, the same binary), so that a
/// hostile file that crashes or hangs libav costs that request only, never the server.
///
/// Runs blocking: call it on the thread pool. The child is killed after `timeout` seconds.
enum ProbeChild {
    static let timeout: TimeInterval = 30

    /// The probe's JSON (`MediaInfo`, snake_case) or the engine's error.
    static func probe(_ path: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: WorkerChild.executable)
        process.arguments = ["probe", "--json", "--", path]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = ServerTether.childEnvironment(environment)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
        let watchdog = DispatchSource.makeTimerSource(queue: .global())
        watchdog.schedule(deadline: .now() + timeout)
        watchdog.setEventHandler { [pid = process.processIdentifier] in _ = kill(pid, SIGKILL) }
        watchdog.resume()
        // stderr is drained on its own thread so a chatty child never blocks on a full pipe.
        let errors = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let text = WorkerChild.readAll(stderr.fileHandleForReading)
            errors.withLock { $0 = text }
            errorsRead.signal()
        }
        let output = WorkerChild.readAll(stdout.fileHandleForReading)
        process.waitUntilExit()
        errorsRead.wait()
        let errorText = errors.withLock { $0 }
        watchdog.cancel()
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            if signal == SIGKILL {
                throw MediaError(.timeout, "probing the file took longer than \(Int(timeout)) s")
            }
            throw MediaError(.workerCrashed, "probing the file crashed its process (\(SignalName.of(signal)))")
        }
        guard process.terminationStatus == 0 else { throw parseError(String(decoding: errorText, as: UTF8.self)) }
        return output
    }

    /// `error: <code>: <message>` as the command line prints it.
    private static func parseError(_ text: String) -> MediaError {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("error: ") }) else {
            return MediaError(.internalError, "the probe process failed: \(text.suffix(500))")
        }
        let parts = line.dropFirst("error: ".count).split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return MediaError(.internalError, String(line)) }
        return MediaError(
            MediaError.Code(rawValue: String(parts[0])), parts[1].trimmingCharacters(in: .whitespaces))
    }
}
