import Foundation
import MediaCore
import MediaJobs
import Synchronization

/// One child process the server isolates untrusted work in (`mediad worker` for jobs, `mediad probe-worker`
/// for `/probe`): started from this server's own executable with stdin, stdout and stderr on pipes.
///
/// Shared between the supervising thread and its watchdog, which may only call `kill()`. A pooled job
/// worker passes from one supervising thread to the next through `WorkerPool`, never used by two at once.
package final class WorkerChild: @unchecked Sendable {
    // `process` is configured and started by the supervising thread before the watchdog exists; after
    // that only `processIdentifier`, which Foundation sets once at launch, is read from other threads.
    // `reader`, `jobsStarted` and `isRetired` are used by the one thread supervising the worker at the time.
    private let process = Process()
    // Foundation closes every other descriptor in the child (emulating POSIX_SPAWN_CLOEXEC_DEFAULT), so no
    // other child inherits these pipes: closing `stdin` reaches the worker as the end of its input.
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let tail = Mutex(Data())
    private let stderrDone = DispatchSemaphore(value: 0)
    private var reader = WorkerMessageReader()
    /// How many jobs have been sent to this worker.
    package private(set) var jobsStarted = 0

    /// How much of the worker's stderr is kept for the job's log.
    package static let stderrTailBytes = 4096

    /// How a worker ended.
    package enum End: CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        package var description: String {
            switch self {
            case .exit(let status): "exited with status \(status)"
            case .signal(let number): "was killed by \(SignalName.of(number))"
            }
        }

        /// Why a child that ended without a final message failed, `doing` what (e.g. "the job"): SIGXCPU
        /// (its CPU-time limit) → `timeout`; an end after an allocation failed (the line of
        /// `AllocationFailures` on stderr: the Swift runtime aborts when one does, x265 may crash on it), or
        /// with the Swift runtime's or C++'s allocation-failure text → `out_of_memory`; any other signal
        /// or exit → `worker_crashed`.
        func failure(doing work: String, stderr: String, limits: WorkerLimits) -> MediaError {
            let allocationTexts = [
                AllocationFailures.stderrMarker, "failed to allocate", "Could not allocate memory", "std::bad_alloc",
                "out of memory",
            ]
            if case .signal(SIGXCPU) = self {
                return MediaError(.timeout, "\(work) used more than its \(limits.cpuSeconds) s of CPU time")
            }
            if allocationTexts.contains(where: stderr.contains) {
                return MediaError(
                    .outOfMemory, "\(work) needed more than its \(limits.memory) bytes of memory (\(self))")
            }
            return MediaError(.workerCrashed, "the worker process \(self) before finishing \(work)")
        }
    }

    /// A child running `arguments` of this server's executable, not started yet.
    package init(arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // A crash should end the worker at once, not after a symbolicated backtrace.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = ServerTether.childEnvironment(environment)
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
    }

    /// A `mediad worker` for jobs of the store in `dataDirectory`, sent with `send(job:cpuSeconds:allowance:staging:)`.
    package convenience init(dataDirectory: String, limits: WorkerLimits, minimumFreeBytes: Int64) {
        self.init(
            arguments: ["worker", "--data-dir", dataDirectory] + limits.arguments + [
                "--min-free-disk", String(minimumFreeBytes),
            ])
    }

    /// A `mediad probe-worker` describing the file at `path`, measuring its loudness when asked.
    package convenience init(probing path: String, limits: WorkerLimits, loudness: Bool = false) {
        self.init(arguments: ["probe-worker"] + limits.arguments + (loudness ? ["--loudness"] : []) + ["--", path])
    }

    /// This server's executable, by absolute path.
    package static let executable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()

    package var pid: Int32 { process.processIdentifier }

    package func start() throws {
        try process.run()
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
        // A thread of its own rather than one of Dispatch's: it blocks for the child's whole life, and the
        // children at once are bounded by --workers and --max-probes.
        let drain = Thread { [self] in
            Self.readToEnd(stderr.fileHandleForReading) { chunk in
                tail.withLock { kept in
                    kept.append(chunk)
                    if kept.count > Self.stderrTailBytes { kept.removeFirst(kept.count - Self.stderrTailBytes) }
                }
            }
            stderrDone.signal()
        }
        drain.name = "worker-stderr"
        drain.start()
    }

    package func kill() { _ = Foundation.kill(pid, SIGKILL) }

    /// Whether the process has not ended.
    package var isRunning: Bool { process.isRunning }

    /// Sends a job worker its next job, with the CPU seconds it may use, what it may write and the inputs
    /// still being staged from the bucket (read as they grow), and starts a new stderr tail for it. Throws
    /// when the worker is gone (its stdin closed): `write(2)` rather than `FileHandle.write`, which traps
    /// on EPIPE.
    package func send(job id: String, cpuSeconds: Int, allowance: OutputAllowance, staging: [String]) throws {
        tail.withLock { $0.removeAll() }
        jobsStarted += 1
        let staged = staging.isEmpty ? "-" : staging.joined(separator: ",")
        let line = Array("\(id) \(cpuSeconds) \(allowance.jobLineFields) \(staged)\n".utf8)
        let written = line.withUnsafeBytes {
            write(stdin.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count)
        }
        guard written == line.count else {
            throw MediaError(.internalError, "worker \(pid) did not take the job: \(String(cString: strerror(errno)))")
        }
    }

    /// Closes the worker's stdin: a job worker exits once it has read to its end.
    package func retire() {
        guard !isRetired else { return }
        isRetired = true
        try? stdin.fileHandleForWriting.close()
    }

    /// Whether `retire()` was called.
    package private(set) var isRetired = false

    /// How reading a job's messages ended.
    package enum JobReport {
        /// Its final message came; the worker is ready for another job.
        case final
        /// The worker's stdout ended (it exited or was killed) before a final message.
        case ended
        /// A line was over `WorkerMessageReader.maximumLineBytes` and was dropped: the report is lost.
        case refused
    }

    /// Reads the worker's messages for the job it was just sent, passing each to `body`, until the final one.
    package func readJobMessages(_ body: (WorkerMessage) -> Void) -> JobReport {
        let descriptor = stdout.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var final = false
        while !final {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .ended }
            reader.consume(Data(buffer[0..<count])) { message in
                if message.succeeded != nil || message.failed != nil { final = true }
                body(message)
            }
            if reader.refusedLine { return .refused }
        }
        return .final
    }

    /// Reads the worker's stdout to its end, passing each message line to `body`. Returns false when a
    /// line was over `WorkerMessageReader.maximumLineBytes`: it was dropped, and the worker's answer with it.
    package func readMessages(_ body: (WorkerMessage) -> Void) -> Bool {
        var reader = WorkerMessageReader()
        Self.readToEnd(stdout.fileHandleForReading) { reader.consume($0, body) }
        return !reader.refusedLine
    }

    /// Reads a pipe until its end. `read(2)` is retried when a signal interrupts it: the server gets a
    /// SIGCHLD whenever any worker exits, and `FileHandle.availableData` reports such an interruption as
    /// an empty read, which would look like the end and lose the worker's last message.
    package static func readToEnd(_ handle: FileHandle, _ body: (Data) -> Void) {
        let descriptor = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                body(Data(buffer[0..<count]))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Waits for the worker to exit and for its stderr to be read to the end.
    package func wait() -> End {
        process.waitUntilExit()
        stderrDone.wait()
        let status = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? .signal(status) : .exit(status)
    }

    /// The last lines the worker wrote on stderr.
    package func stderrTail() -> String {
        String(decoding: tail.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Signal names as people look them up (`SIGSEGV`), for messages.
package enum SignalName {
    package static func of(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGKILL: "SIGKILL", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
            SIGFPE: "SIGFPE", SIGTRAP: "SIGTRAP", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
            SIGPIPE: "SIGPIPE", SIGINT: "SIGINT", SIGSYS: "SIGSYS",
        ]
        return names[number] ?? "signal \(number)"
    }
}
