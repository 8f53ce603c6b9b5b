import JobStore
import MediaCore
import MediaJobs
import MediadRuntime

/// Probes a received file, for `POST /probe` and for the admission of an upload to a job, the same way
/// for both: in a child process, or with `--isolation none` in this one.
struct MediaProber {
    /// `--isolation` and the limits of its child processes.
    let isolation: IsolationSettings

    /// Refuses an upload whose tracks fail `admission` (a kind's `MediaJob.admission(for:memoryLimit:)`),
    /// from a probe made as `POST /probe` makes it. A file the probe cannot read is left to the job, which
    /// reports why with the engine's own code.
    func admit(_ path: String, _ admission: @Sendable (MediaInfo) throws -> Void) async throws {
        guard let info = try? await describe(path, loudness: false) else { return }
        try admission(info)
    }

    /// The probe of a received file, capped for reporting: in a child process, or with `--isolation none`
    /// in this one. Either way on a thread of its own, bounded by the probe slots, so that a slow probe
    /// never holds a thread of the blocking pool that uploads and the store share.
    func describe(_ file: String, loudness: Bool) async throws -> MediaInfo {
        if isolation.mode == .process {
            let settings = isolation
            return try await DedicatedThread.run(name: "probe") {
                try ProbeChild.probe(file, settings: settings, loudness: loudness)
            }
        }
        return try await DedicatedThread.run(name: "probe") { try JobCatalog.probe(file, loudness: loudness) }
    }
}
