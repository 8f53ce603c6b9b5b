import Synchronization

/// Tells subscribers that the job index changed — a job was added, changed state, got its outputs or was
/// forgotten — without saying what: each subscriber compares the index with what it last saw.
///
/// A subscriber holds at most one pending signal (`AsyncStream` buffering the newest element), however
/// many changes happen before it looks, so a slow one (an event stream to a client that reads slowly)
/// costs the same memory as a fast one. `generation` counts changes, so a subscriber that wakes for some
/// other reason (a timer) can tell whether anything changed meanwhile.
package final class JobChanges: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var next = 0
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// How many changes there have been.
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// Signals `continuation` after every change from now on, until it terminates (its stream is
    /// finished or no longer iterated).
    package func subscribe(_ continuation: AsyncStream<Void>.Continuation) {
        let key = state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
    }

    /// Records a change and signals every subscriber.
    func publish() {
        let subscribers = state.withLock { state in
            state.generation &+= 1
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield() }
    }

    /// Subscribers now, for tests.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}
