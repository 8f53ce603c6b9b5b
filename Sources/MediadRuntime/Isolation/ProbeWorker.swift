import Foundation
import MediaCore
import MediaJobs

/// The child side of an isolated `/probe` (`mediad probe-worker`): describes one uploaded file in this
/// process, under the limits a job's worker runs under, and tells the server the answer as one
/// `WorkerMessage` line on stdout.
///
/// The limits are set before the file is opened, so a file that makes libav allocate gigabytes, spin or
/// crash costs this process only. The description is capped (`MediaInfo.reported`) before it is written,
/// so the line stays far below what the server reads.
public enum ProbeWorker {
    /// Probes the file (measuring its loudness when asked) and writes the answer (a description or an
    /// error); the command then exits 0.
    public static func run(path: String, limits: WorkerLimits, loudness: Bool = false) {
        ServerTether.holdIfStartedByServer()
        JobWorker.closeInheritedSockets()
        // libav's complaints about a broken file go to stderr, whose tail the server keeps for errors.
        LibavLog.configure(level: 16) { _, line in FileHandle.standardError.write(Data("libav: \(line)\n".utf8)) }
        let message: WorkerMessage
        let allocations = AllocationFailures.current
        do {
            try limits.apply()
            let info = try JobCatalog.probe(path, loudness: loudness)
            message = WorkerMessage(succeeded: WorkerMessage.Success(probe: info))
        } catch let error as MediaError {
            message = WorkerMessage(failed: JobWorker.classify(error, allocations: allocations))
        } catch {
            message = WorkerMessage(
                failed: JobWorker.classify(MediaError(.internalError, "\(error)"), allocations: allocations))
        }
        FileHandle.standardOutput.write(message.line())
    }
}
