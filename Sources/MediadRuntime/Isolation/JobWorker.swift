import Foundation
import JobStore
import MediaCore
import MediaJobs
import Synchronization

/// The child side of process isolation (`mediad worker`): runs jobs of the store in this process, one
/// after another, under limits, and tells the server how each goes as `WorkerMessage` lines on stdout.
///
/// The worker reads the job's record but never writes it; the server stays the only writer of `job.json`.
/// libav's log lines go to the job's log, which the server leaves alone while the worker runs.
public enum JobWorker {
    /// Runs the jobs the server sends on stdin one after another, each line a job's id, its CPU-time
    /// budget in seconds, what it may write (`OutputAllowance.jobLineFields`) and the names of its inputs
    /// still being staged from the bucket (comma-separated, `-` for none), and answers each with
    /// progress lines, then one final message (success or failure); a worker that dies first leaves no
    /// final message, which the server reads as a crash.
    /// Returns at the end of stdin, which comes when the server retires the worker or exits.
    /// `limits.cpuSeconds` caps the CPU time of its whole life; each job gets its budget on top of what
    /// the process has used so far.
    public static func serve(dataDirectory: String, limits: WorkerLimits, minimumFreeBytes: Int64) {
        ServerTether.holdIfStartedByServer()
        closeInheritedSockets()
        do {
            try limits.applyForJobs()
        } catch {
            FileHandle.standardError.write(Data("mediad worker: \(error)\n".utf8))
            exit(70)
        }
        while let line = readLine() {
            let fields = line.split(separator: " ")
            AllocationFailures.rearmReport()
            let allocations = AllocationFailures.current
            let message = finalMessage(allocations: allocations) {
                guard fields.count == 6, let seconds = Int(fields[1]),
                    let allowance = OutputAllowance(jobLineFields: Array(fields[2..<5]))
                else {
                    throw MediaError(.internalError, "the worker cannot read the job line '\(line.prefix(200))'")
                }
                try WorkerLimits.allowCPU(seconds: seconds)
                let staging = fields[5] == "-" ? [] : fields[5].split(separator: ",").map(String.init)
                return try runJob(
                    dataDirectory: dataDirectory, id: String(fields[0]), staging: Set(staging), allowance: allowance,
                    limits: limits, minimumFreeBytes: minimumFreeBytes)
            }
            FileHandle.standardOutput.write(message.line())
        }
    }

    /// The final message of a job run by `body`: its outcome, or its error as the server should record it,
    /// the allocations that failed since `allocations` counting as running out of memory.
    private static func finalMessage(allocations: AllocationFailures, _ body: () throws -> JobExecutor.Outcome)
        -> WorkerMessage
    {
        do {
            return WorkerMessage(succeeded: WorkerMessage.Success(job: try body()))
        } catch let error as MediaError {
            return WorkerMessage(failed: classify(error, allocations: allocations))
        } catch {
            return WorkerMessage(failed: classify(MediaError(.internalError, "\(error)"), allocations: allocations))
        }
    }

    private static func runJob(
        dataDirectory: String, id: String, staging: Set<String>, allowance: OutputAllowance, limits: WorkerLimits,
        minimumFreeBytes: Int64
    ) throws -> JobExecutor.Outcome {
        let store = try JobStore(root: dataDirectory, minimumFreeBytes: minimumFreeBytes)
        guard let record = try store.load(id: id) else { throw MediaError(.internalError, "no job \(id) in the store") }
        let log = JobLog(path: store.logPath(id: id))
        defer { log.close() }
        let verbose = ProcessInfo.processInfo.environment["MEDIAD_LOG"] == "verbose"
        // Every thread of this process works for this one job, so every line is the job's.
        LibavLog.configure(level: verbose ? 40 : 24) { _, line in log.write("libav: \(line)") }
        let progress = ProgressWriter()
        let space = OutputSpaceGuard(store.watermark)
        let meter = OutputMeter(directory: store.outputDirectory(id: id), allowance: allowance)
        let context = JobContext(
            reportProgress: { progress.report($0) },
            checkResources: {
                try space.check()
                try meter.check()
            }, outputAllowance: allowance)
        do {
            return try JobExecutor(store: store).run(record, staging: staging, context: context)
        } catch let error as MediaError where error.code == .outputTooLarge && !error.message.contains("--max-output") {
            // A write the kernel stopped (EFBIG): one file reached RLIMIT_FSIZE.
            throw MediaError(
                .outputTooLarge,
                "\(error.message): an output file reached the \(limits.maxOutput) bytes a job may write (--max-output)")
        }
    }

    /// Closes the server's network sockets (client connections, the listener) that the spawn let
    /// through, so a connection the server closes is closed for its client at once, not when this worker
    /// exits. A worker has no network sockets of its own.
    ///
    /// Unix sockets stay open: Foundation's `Process` gives each child one end of a socket pair on
    /// purpose and takes its end (at exit) as the sign to reap the child, with a `waitpid` that blocks
    /// the one thread watching every child. A worker that closed it early, and then lived on between
    /// jobs, would hold that thread, and no other child's end would be seen.
    package static func closeInheritedSockets() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in names.compactMap(Int32.init) {
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { continue }
            var domain: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0, domain == AF_INET || domain == AF_INET6 {
                close(fd)
            }
        }
    }

    /// The error as the server should record it: a failure for want of memory becomes `out_of_memory`,
    /// whatever code it had on its way up. Want of memory is an allocation that failed since `allocations`
    /// (x264, x265 and SVT-AV1 turn one into a generic error), libav's ENOMEM text, or no address space
    /// left (a thread's stack or a mapping that is no allocation).
    package static func classify(_ error: MediaError, allocations: AllocationFailures) -> WorkerMessage.Failure {
        let failed = AllocationFailures.current.failures(since: allocations)
        let outOfMemory =
            failed != nil || error.message.contains(String(cString: strerror(ENOMEM)))
            || !WorkerLimits.hasAddressSpace()
        guard outOfMemory, error.code != .cancelled, error.code != .outOfMemory else {
            return WorkerMessage.Failure(code: error.code.rawValue, message: error.message)
        }
        return WorkerMessage.Failure(
            code: MediaError.Code.outOfMemory.rawValue,
            message: "the job ran out of memory\(failed.map { " (\($0))" } ?? ""): \(error.message)")
    }
}

/// Writes progress lines, at most one per percent, so the pipe carries about a hundred lines per job.
private final class ProgressWriter: Sendable {
    private let last = Mutex(-1)

    package func report(_ progress: Double) {
        let percent = Int((progress * 100).rounded(.down))
        let changed = last.withLock { last in
            guard percent > last else { return false }
            last = percent
            return true
        }
        if changed { FileHandle.standardOutput.write(WorkerMessage(progress: progress).line()) }
    }
}
