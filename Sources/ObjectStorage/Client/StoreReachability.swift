import Synchronization

/// Whether the store answered the last time it was asked, as every request of an `S3Client` (and its copies)
/// reports it: a request the store answered, with any status, marks it reachable; one given up after the
/// retries for want of an answer (connections refused or cut, timeouts, 5xx and throttling to the end)
/// marks it unreachable until a later request is answered.
///
/// A server refuses new work while its store is unreachable (503 `storage_unavailable`) rather than take
/// uploads it cannot keep, and asks the store again now and then (`ObjectStoreWatch`) to notice its return.
public final class StoreReachability: Sendable {
    private let reachable = Mutex(true)

    public init() {}

    public var isReachable: Bool { reachable.withLock { $0 } }

    func answered() { reachable.withLock { $0 = true } }

    func gaveUp() { reachable.withLock { $0 = false } }
}
