import Synchronization

/// What a failed put could not clean up in the bucket because the store did not answer: a multipart upload
/// to abort, or every object and upload under a key prefix to remove (a submission that made no job, a
/// job's outputs that did not all go up). `ObjectStoreWatch` removes them once the store answers again,
/// so an outage leaves no half-written object and no upload behind while the server runs; the sweep of
/// abandoned uploads (`JobObjects.sweepAbandonedUploads`) covers a server restarted meanwhile.
package final class ObjectLeftovers: Sendable {
    /// One thing to remove, keys relative to the location's prefix.
    package enum Item: Sendable, Hashable {
        case upload(key: String, uploadID: String)
        case prefix(String)
    }

    private let items = Mutex<[Item]>([])

    package init() {}

    /// Remembers `item` (once).
    func add(_ item: Item) {
        items.withLock { if !$0.contains(item) { $0.append(item) } }
    }

    /// What is waiting, oldest first.
    package var pending: [Item] { items.withLock { $0 } }

    /// Forgets `item`, once it is removed.
    func done(_ item: Item) {
        items.withLock { $0.removeAll { $0 == item } }
    }
}
