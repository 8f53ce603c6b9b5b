import Foundation
import JobStore
import MediaCore

/// Probes an uploaded file in a `mediad probe-worker` child, so that a hostile file that crashes, hangs
/// or blows up libav costs that request only, never the server.
///
/// The child runs under the jobs' limits (`--job-memory`, CPU time, open files) and a wall clock: at most
/// `timeout`, less when the jobs' timeout ceiling is lower. It ends as a job's worker would: `out_of_memory`,
/// `timeout` or `worker_crashed` when the limits stop it, the engine's error otherwise.
///
/// Blocks until the child is gone: call it on a thread of its own (`DedicatedThread`), never on an event
/// loop or the shared blocking pool, which uploads and the store need meanwhile.
package enum ProbeChild {
    /// The longest a probe may take: it reads headers and a few frames, and a client waits for it.
    package static let timeout: TimeInterval = 30

    /// The file's description, capped for reporting (`MediaInfo.reported`), or why it has none. Measuring
    /// loudness decodes every audio track, so it gets a job's timeout for the file's size instead of
    /// `timeout`.
    package static func probe(_ path: String, settings: IsolationSettings, loudness: Bool = false) throws
        -> MediaInfo
    {
        var file = stat()
        let jobTimeout = settings.timeout(inputBytes: stat(path, &file) == 0 ? Int64(file.st_size) : 0)
        let timeout = loudness ? jobTimeout : min(Self.timeout, jobTimeout)
        // A probe writes no file, so it may write none.
        let limits = WorkerLimits(
            memory: settings.jobMemory, maxOutput: 0, cpuSeconds: settings.cpuSeconds(timeout: timeout))
        let child = WorkerChild(probing: path, limits: limits, loudness: loudness)
        do {
            try child.start()
        } catch {
            throw MediaError(.internalError, "cannot start a probe process: \(error)")
        }
        let watchdog = ChildWatchdog(child, timeout: timeout)
        var final: WorkerMessage?
        let complete = child.readMessages { message in
            if message.succeeded != nil || message.failed != nil { final = message }
        }
        let end = child.wait()
        if watchdog.disarm() == .timedOut {
            throw MediaError(.timeout, "probing the file took longer than \(Int(timeout)) s")
        }
        guard complete else {
            throw MediaError(
                .resultTooLarge,
                "the probe's report was over the \(WorkerMessageReader.maximumLineBytes)-byte limit and was dropped")
        }
        if let info = final?.succeeded?.probe { return info }
        if let failure = final?.failed {
            throw MediaError(MediaError.Code(rawValue: failure.code), failure.message)
        }
        throw end.failure(doing: "probing the file", stderr: child.stderrTail(), limits: limits)
    }
}
