import Foundation
import JobDatabase
import JobStore

/// Idempotency keys in the replicas' database (`idempotency_keys`, see `JobDatabase+Idempotency`): a claim
/// is the statement that stores the new job, so a job is queued only under a key of its own, and a key
/// never names a job the database does not hold.
///
/// Each statement gives up after `JobDatabase.statementDeadline`, and a database that cannot be used
/// is `store_unavailable` (503 with `Retry-After`), as for a job published without a key.
struct DatabaseIdempotencyKeys: IdempotencyKeys {
    let database: JobDatabase

    func entry(_ digest: String, lifetime: TimeInterval) async throws -> IdempotencyEntry? {
        try await statement { try await $0.idempotencyEntry(digest, lifetime: lifetime) }
    }

    /// Stores the job and the key together; `publish` is not called, the statement being the publication.
    func claim(
        _ digest: String, _ entry: IdempotencyEntry, job record: JobRecord, lifetime: TimeInterval,
        publish: @escaping @Sendable () async throws -> Void
    ) async throws -> JobStore.IdempotencyClaim {
        try await statement { try await $0.insert(record, claiming: digest, entry, lifetime: lifetime) }
    }

    /// One `DELETE` of the keys older than `lifetime`; the keys of deleted jobs went with them.
    func sweep(lifetime: TimeInterval) async throws -> Int {
        try await statement { try await $0.sweepIdempotencyKeys(lifetime: lifetime) }
    }

    /// Runs `body` within the statement deadline; a database that fails it is `store_unavailable`.
    private func statement<T: Sendable>(_ body: @escaping @Sendable (JobDatabase) async throws -> T) async throws
        -> T
    {
        do {
            return try await JobDatabase.within(JobDatabase.statementDeadline) { [database] in
                try await body(database)
            }
        } catch let error as DatabaseError {
            throw DatabaseScheduler.unavailable(error)
        }
    }
}
