import Foundation
import JobStore
import NIOPosix

/// Idempotency keys as files in the data directory (`JobStore+Idempotency`), claimed with `link(2)`: the
/// keys of a server of its own, and of replicas that share the data directory alone.
struct StoreIdempotencyKeys: IdempotencyKeys {
    let store: JobStore
    let threadPool: NIOThreadPool

    func entry(_ digest: String, lifetime: TimeInterval) async throws -> IdempotencyEntry? {
        try await threadPool.runIfActive { [store] in store.idempotencyEntry(digest, lifetime: lifetime, now: Date()) }
    }

    /// Links the entry's file, then publishes the job (a job that cannot be published is deleted by the
    /// caller, which leaves the entry dead: its job is gone).
    func claim(
        _ digest: String, _ entry: IdempotencyEntry, job record: JobRecord, lifetime: TimeInterval,
        publish: @escaping @Sendable () async throws -> Void
    ) async throws -> JobStore.IdempotencyClaim {
        let claim = try await threadPool.runIfActive { [store] in
            try store.claimIdempotencyKey(digest, entry, lifetime: lifetime, now: entry.createdAt)
        }
        if claim == .claimed { try await publish() }
        return claim
    }

    func sweep(lifetime: TimeInterval) async throws -> Int {
        try await threadPool.runIfActive { [store] in try store.sweepIdempotencyKeys(lifetime: lifetime, now: Date()) }
    }
}
