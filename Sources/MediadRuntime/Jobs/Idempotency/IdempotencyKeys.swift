import Foundation
import JobStore

/// Where a server keeps its submissions' `Idempotency-Key` mappings, chosen once by `JobService`: the data
/// directory (`StoreIdempotencyKeys`) for a server of its own or replicas on a shared volume, PostgreSQL
/// (`DatabaseIdempotencyKeys`) for replicas with `--database`. Either way a key maps to one job, of two
/// claims of one key exactly one wins, and a key is live for its lifetime only while its job exists.
package protocol IdempotencyKeys: Sendable {
    /// The live entry for `digest`, if any.
    func entry(_ digest: String, lifetime: TimeInterval) async throws -> IdempotencyEntry?

    /// Maps `digest` to `entry`, whose job is the new `record` (its directory stored), unless a live
    /// entry holds it (`.taken`, that entry). The job is published (made known to the other replicas) only
    /// when the key is claimed: after the claim by `publish`, or in the claim's own statement.
    func claim(
        _ digest: String, _ entry: IdempotencyEntry, job record: JobRecord, lifetime: TimeInterval,
        publish: @escaping @Sendable () async throws -> Void
    ) async throws -> JobStore.IdempotencyClaim

    /// Removes the dead mappings; returns how many went.
    func sweep(lifetime: TimeInterval) async throws -> Int
}
