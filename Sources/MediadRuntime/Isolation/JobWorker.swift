import Foundation
import JobStore
import MediaCore
import MediaJobs
import Synchronization

/// The child side of process isolation (`mediad worker`): runs one job of the store in this process,
/// under limits, and tells the server how it goes as `WorkerMessage` lines on stdout.
///
/// The worker reads the job's record but never writes it; the server stays the only writer of `job.json`.
/// libav's log lines go to the job's log, which the server leaves alone while the worker runs.
public enum JobWorker {
    /// Runs the job and writes its final message (success or failure); the command then exits 0, and a
    /// worker that dies first leaves no message, which the server reads as a crash.
    /// The job's outputs stop with `insufficient_storage` before the disk has less than `minimumFreeBytes` free.
    public static func run(dataDirectory: String, id: String, limits: WorkerLimits, minimumFreeBytes: Int64) {
        ServerTether.holdIfStartedByServer()
        closeInheritedSockets()
        let message: WorkerMessage
        do {
            try limits.apply()
            message = WorkerMessage(
                succeeded: WorkerMessage.Success(
                    job: try runJob(dataDirectory: dataDirectory, id: id, minimumFreeBytes: minimumFreeBytes)))
        } catch let error as MediaError {
            message = WorkerMessage(failed: classify(error))
        } catch {
            message = WorkerMessage(failed: classify(MediaError(.internalError, "\(error)")))
        }
        FileHandle.standardOutput.write(message.line())
    }

    private static func runJob(dataDirectory: String, id: String, minimumFreeBytes: Int64) throws
        -> JobExecutor.Outcome
    {
        let store = try JobStore(root: dataDirectory, minimumFreeBytes: minimumFreeBytes)
        guard let record = try store.load(id: id) else { throw MediaError(.internalError, "no job \(id) in the store") }
        let log = JobLog(path: store.logPath(id: id))
        defer { log.close() }
        let verbose = ProcessInfo.processInfo.environment["MEDIAD_LOG"] == "verbose"
        // Every thread of this process works for this one job, so every line is the job's.
        LibavLog.configure(level: verbose ? 40 : 24) { _, line in log.write("libav: \(line)") }
        let progress = ProgressWriter()
        let space = OutputSpaceGuard(store.watermark)
        let context = JobContext(reportProgress: { progress.report($0) }, checkResources: { try space.check() })
        return try JobExecutor(store: store).run(record, context: context)
    }

    /// Closes the server's sockets (client connections, the listener) that the spawn let through, so a
    /// connection the server closes is closed for its client at once, not when this worker exits. A
    /// worker has no sockets of its own.
    package static func closeInheritedSockets() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in names.compactMap(Int32.init) {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { close(fd) }
        }
    }

    /// The error as the server should record it: a failure for want of memory (libav's ENOMEM text, or no
    /// address space left) becomes `out_of_memory`, whatever code it had on its way up.
    package static func classify(_ error: MediaError) -> WorkerMessage.Failure {
        let outOfMemory =
            error.message.contains(String(cString: strerror(ENOMEM))) || !WorkerLimits.hasAddressSpace()
        guard outOfMemory, error.code != .cancelled else {
            return WorkerMessage.Failure(code: error.code.rawValue, message: error.message)
        }
        return WorkerMessage.Failure(
            code: MediaError.Code.outOfMemory.rawValue, message: "the job ran out of memory: \(error.message)")
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
