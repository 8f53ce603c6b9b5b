import Synchronization

/// What one request is receiving, counted against its owner's quota (`StorageLedger`) from the moment its
/// head is read until `release()`: the body's declared length, or for a body of unknown length what has
/// arrived so far, so that two requests at once cannot both pass a check that only one of them fits.
package final class StorageHold: Sendable {
    private let ledger: StorageLedger
    private let owner: String?
    /// Bytes held; nil once released.
    private let held = Mutex<Int64?>(0)

    init(ledger: StorageLedger, owner: String?) {
        self.ledger = ledger
        self.owner = owner
    }

    /// Holds `bytes` in all (nothing changes when it holds as much already); `quota_exceeded` when the
    /// rise would take the owner past the quota.
    package func cover(_ bytes: Int64) throws {
        try held.withLock { held in
            guard let current = held, bytes > current else { return }
            try ledger.receive(bytes - current, for: owner)
            held = bytes
        }
    }

    /// Gives the bytes back: the request ended, or what it received is now counted elsewhere (the job's
    /// record). Does nothing the second time.
    package func release() {
        let bytes = held.withLock { held in
            defer { held = nil }
            return held ?? 0
        }
        ledger.release(bytes, for: owner)
    }
}
