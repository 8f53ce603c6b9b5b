import Foundation

/// How `mediad serve` runs jobs: in a supervised child process each (the default) or in-process, and the
/// limits a child runs under.
public struct IsolationSettings: Sendable {
    /// Where a job runs.
    public enum Mode: String, Sendable, CaseIterable {
        /// A `mediad worker` child per job: a crash, hang or memory blow-up costs that job only.
        case process
        /// On a thread of the server, for trusted batch use.
        case none
    }

    public var mode = Mode.process
    /// The address space a worker may map (RLIMIT_AS), in bytes.
    public var jobMemory: Int64 = 2 << 30
    /// The largest file a worker may write (RLIMIT_FSIZE), in bytes.
    public var maxOutput: Int64 = 16 << 30
    /// The shortest wall-clock time a job gets, in seconds.
    public var timeoutFloor: TimeInterval = 60
    /// The longest wall-clock time a job gets, in seconds.
    public var timeoutCeiling: TimeInterval = 6 * 3600
    /// The jobs one worker process runs before it is replaced by a fresh one (1: a new process per job).
    public var jobsPerWorker = 50

    public init() {}

    /// The bit rate (bytes per second) at which the input's size is read as a duration: 128 kbit/s, about
    /// the lowest of the inputs mediad takes (AAC). Denser inputs (PCM, video) are overestimated, which only
    /// gives them more time.
    package static let assumedBytesPerSecond = 16_000.0

    /// How long a job with `inputBytes` of input may run: the floor plus the duration estimated from the
    /// size (jobs run far faster than real time, so this is generous) times the kind's `scale` (10 for
    /// transcode, which encodes video), at most the ceiling, less the seconds the job has `spent` already
    /// (fetching its inputs by URL, which is part of the job), but never less than the floor.
    ///
    /// The duration is estimated from the size rather than probed so that the server never opens an
    /// untrusted input itself: that is the worker's job, under its limits.
    package func timeout(inputBytes: Int64, scale: Double = 1, spent: TimeInterval = 0) -> TimeInterval {
        let estimate = Double(max(0, inputBytes)) / Self.assumedBytesPerSecond * scale
        return max(timeoutFloor, min(timeoutCeiling, timeoutFloor + estimate) - max(0, spent))
    }

    /// The CPU time a worker may use (RLIMIT_CPU): its wall-clock timeout on every core, so that only a
    /// worker the wall clock would have stopped anyway is stopped by it.
    package func cpuSeconds(timeout: TimeInterval) -> Int {
        max(1, Int(timeout.rounded(.up)) * ProcessInfo.processInfo.activeProcessorCount)
    }
}
