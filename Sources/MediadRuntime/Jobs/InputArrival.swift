import JobStore
import Synchronization

/// The upload of a job's input that is still arriving while the job is queued or runs: settled once, by
/// the request that carries it, with nil when the body ended and passed its checks or with the upload's
/// error. A run of the job takes its end only once the upload is settled (`JobService.gate`): a job never succeeds on
/// an input that then failed its size or SHA-256 check.
package final class InputArrival: Sendable {
    private enum State {
        case arriving([CheckedContinuation<JobError?, Never>])
        case settled(JobError?)
    }

    private let state = Mutex(State.arriving([]))

    package init() {}

    /// Records how the upload ended and wakes whoever waits; only the first call counts.
    func settle(_ failure: JobError?) {
        let waiting = state.withLock { state -> [CheckedContinuation<JobError?, Never>] in
            guard case .arriving(let waiting) = state else { return [] }
            state = .settled(failure)
            return waiting
        }
        for waiter in waiting { waiter.resume(returning: failure) }
    }

    /// The upload's error once it has ended, nil when it arrived whole.
    func settled() async -> JobError? {
        await withCheckedContinuation { waiter in
            let outcome = state.withLock { state -> JobError?? in
                switch state {
                case .arriving(let waiting):
                    state = .arriving(waiting + [waiter])
                    return .none
                case .settled(let failure):
                    return .some(failure)
                }
            }
            if let outcome { waiter.resume(returning: outcome) }
        }
    }
}
