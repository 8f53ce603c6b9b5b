import Foundation
import Synchronization

/// Kills a worker or probe child (SIGKILL) when its wall-clock budget runs out or its job is stopped.
///
/// The thread that started the child blocks in `wait()`, so something else must watch the clock: a task
/// that wakes every `interval` on the cooperative pool, asks `stopRequested`, compares the time and never
/// blocks. `disarm()` ends the watch once the child is gone and returns what the watchdog did; after it
/// returns the watchdog kills nothing, so a pid the system has since reused is never hit.
package final class ChildWatchdog: Sendable {
    /// Why the watchdog killed the child, if it did.
    package enum Verdict: Sendable {
        case none, stopped, timedOut
    }

    private enum State {
        case armed(Task<Void, Never>?)
        case struck(Verdict)
        case disarmed
    }

    private let state = Mutex(State.armed(nil))

    /// Starts watching `child`: it is killed once `timeout` seconds have passed or `stopRequested` says so.
    package init(
        _ child: WorkerChild, timeout: TimeInterval, interval: Duration = .milliseconds(50),
        stopRequested: @escaping @Sendable () -> Bool = { false }
    ) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(min(timeout, 1e9) * 1000))
        let watcher = Task { [self] in
            while !Task.isCancelled {
                let verdict: Verdict =
                    stopRequested() ? .stopped : ContinuousClock.now >= deadline ? .timedOut : .none
                if verdict != .none { return strike(child, verdict) }
                try? await Task.sleep(for: interval)
            }
        }
        state.withLock { if case .armed = $0 { $0 = .armed(watcher) } }
    }

    private func strike(_ child: WorkerChild, _ verdict: Verdict) {
        state.withLock { state in
            guard case .armed = state else { return }
            child.kill()
            state = .struck(verdict)
        }
    }

    /// Stops watching (call it once the child has ended) and says whether the watchdog killed it, and why.
    package func disarm() -> Verdict {
        state.withLock { state in
            switch state {
            case .armed(let watcher):
                watcher?.cancel()
                state = .disarmed
                return .none
            case .struck(let verdict):
                return verdict
            case .disarmed:
                return .none
            }
        }
    }
}
