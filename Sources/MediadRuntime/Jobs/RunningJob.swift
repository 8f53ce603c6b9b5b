import MediaCore
import Synchronization

/// What the service and a job's worker thread share while it runs: the cancel request and the progress.
package final class RunningJob: Sendable {
    /// Why a run is being stopped.
    package enum StopReason: UInt8 {
        case none = 0
        /// `DELETE /jobs/{id}`: the job ends as `cancelled`.
        case cancelledByUser = 1
        /// Server shutdown: the job goes back to the queue.
        case shutdown = 2
        /// Shared store: another replica took the job over (this one missed renewing its lease).
        case leaseLost = 3
        /// The upload of the job's input, still arriving while it ran, or its staging from the bucket,
        /// failed: the job ends `failed` with that error (`InputArrival`).
        case inputFailed = 4
    }

    private let stop = Atomic<UInt8>(StopReason.none.rawValue)
    private let progressBits = Atomic<UInt64>(Double(0).bitPattern)

    package func requestStop(_ reason: StopReason) { stop.store(reason.rawValue, ordering: .relaxed) }

    package var stopReason: StopReason { StopReason(rawValue: stop.load(ordering: .relaxed)) ?? .none }

    package var progress: Double {
        get { Double(bitPattern: progressBits.load(ordering: .relaxed)) }
        set { progressBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
}

extension RunningJob {
    /// Runs `body` until it ends or the run is asked to stop: then `body` is cancelled and this throws
    /// `cancelled`, saying what the run was `doing` (how the run ends then — cancelled, requeued — is the
    /// stop reason's to decide).
    func untilStopped<T: Sendable>(doing: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                while self.stopReason == .none { try await Task.sleep(for: .milliseconds(100)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw MediaError(.cancelled, "stopped while \(doing)")
            }
            return value
        }
    }
}
