import Synchronization

/// How many `/probe` requests may be under way at once (`--max-probes`), from their head to their answer.
///
/// A probe holds a child process (up to `--job-memory` of address space) and a thread while it runs, and
/// a client waits for it; past the limit a probe is refused at once with 429 rather than queued, before
/// its body is read.
final class ProbeSlots: Sendable {
    /// The most probes under way at once.
    let limit: Int
    private let taken = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a slot; false when all are taken.
    func take() -> Bool {
        taken.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a slot `take` gave.
    func give() {
        taken.withLock { $0 -= 1 }
    }
}
