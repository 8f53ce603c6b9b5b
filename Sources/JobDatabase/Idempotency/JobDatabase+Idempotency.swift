import Foundation
import JobStore
import MediaJobs
import PostgresNIO

/// `Idempotency-Key` mappings in the `idempotency_keys` table, for replicas that share the database: a row
/// per key (`JobStore.idempotencyDigest`), naming the job it created and holding the `IdempotencyEntry`.
///
/// A key is live for `lifetime` after its row was made, by the database's clock, and only while its job
/// exists: the row's foreign key deletes it with its job. A dead key is replaced by the next claim and
/// deleted by `sweepIdempotencyKeys`.
extension JobDatabase {
    /// Stores the new job `record` and maps `digest` to it (as `entry`, whose `jobID` is `record.id`) in
    /// one statement, unless a live key holds `digest`: then nothing is stored and that key's entry is
    /// returned (`.taken`). The job is thus queued, and seen by every replica, only if the key is its own.
    ///
    /// Atomic across replicas: the row is inserted, and on a conflict the existing row is updated under its
    /// row lock to itself, or, when it is dead, to the new entry with a new `created_at`. Of two claims of
    /// one digest the second waits for the first's row lock and then judges the row as the first left it,
    /// which is live, so exactly one wins, whether the key was free, dead, or its job deleted meanwhile (the
    /// insert is tried again once the deleted row is gone). Either way the statement returns the row that
    /// holds the key, so a loser learns the winner's job without a second read.
    public func insert(
        _ record: JobRecord, claiming digest: String, _ entry: IdempotencyEntry, lifetime: TimeInterval
    ) async throws -> JobStore.IdempotencyClaim {
        let json = try Self.json(record)
        let entryJSON = try Self.json(entry)
        let position = JobListPosition(record: record)
        let held = try await rows(
            """
            WITH claimed AS (
                INSERT INTO idempotency_keys AS held (digest, job_id, entry)
                VALUES (\(digest), \(record.id), \(entryJSON)::jsonb)
                ON CONFLICT (digest) DO UPDATE SET
                    job_id = CASE WHEN held.created_at <= now() - \(lifetime)::float8 * interval '1 second'
                        THEN excluded.job_id ELSE held.job_id END,
                    entry = CASE WHEN held.created_at <= now() - \(lifetime)::float8 * interval '1 second'
                        THEN excluded.entry ELSE held.entry END,
                    created_at = CASE WHEN held.created_at <= now() - \(lifetime)::float8 * interval '1 second'
                        THEN now() ELSE held.created_at END
                RETURNING job_id, entry::text
            ), job AS (
                -- The row `insert(_:)` writes, only for the claim's winner; the key's foreign key is checked
                -- at the end of the statement, with the job in place.
                INSERT INTO jobs (id, record, state, kind, owner, created_at, queued_at, attempts)
                SELECT \(record.id), \(json)::jsonb, \(record.state.rawValue), \(record.kind.rawValue), \(record.owner),
                    timestamptz 'epoch' + \(position.milliseconds)::float8 * interval '1 millisecond',
                    CASE WHEN \(record.state.rawValue) = 'queued' THEN now() END, \(record.attempts)
                WHERE EXISTS (SELECT FROM claimed WHERE job_id = \(record.id))
                RETURNING id
            )
            SELECT job_id, entry FROM claimed
            """, "claiming an idempotency key for job \(record.id)", as: (String, String).self)
        guard let (jobID, stored) = held.first else {
            throw DatabaseError(.queryFailed, "claiming an idempotency key for job \(record.id) returned no row")
        }
        return jobID == record.id ? .claimed : .taken(try Self.idempotencyEntry(stored))
    }

    /// The live entry for `digest`, if any.
    public func idempotencyEntry(_ digest: String, lifetime: TimeInterval) async throws -> IdempotencyEntry? {
        try await rows(
            """
            SELECT entry::text FROM idempotency_keys
            WHERE digest = \(digest) AND created_at > now() - \(lifetime)::float8 * interval '1 second'
            """, "reading an idempotency key", as: String.self
        ).first.map(Self.idempotencyEntry)
    }

    /// Deletes the keys older than `lifetime` (those of deleted jobs went with them); returns how many.
    @discardableResult
    public func sweepIdempotencyKeys(lifetime: TimeInterval) async throws -> Int {
        try await rows(
            """
            WITH swept AS (
                DELETE FROM idempotency_keys WHERE created_at <= now() - \(lifetime)::float8 * interval '1 second'
                RETURNING 1
            )
            SELECT count(*)::bigint FROM swept
            """, "sweeping idempotency keys", as: Int.self
        ).first ?? 0
    }

    /// An entry as the `entry` column holds it, the JSON `JobJSON` writes.
    static func json(_ entry: IdempotencyEntry) throws -> String {
        String(decoding: try JobJSON.encoder().encode(entry), as: UTF8.self)
    }

    /// The entry of the `entry` column read as text.
    static func idempotencyEntry(_ json: String) throws -> IdempotencyEntry {
        do {
            return try JobJSON.decoder().decode(IdempotencyEntry.self, from: Data(json.utf8))
        } catch {
            throw DatabaseError(.queryFailed, "a stored idempotency entry does not decode: \(error)")
        }
    }
}
