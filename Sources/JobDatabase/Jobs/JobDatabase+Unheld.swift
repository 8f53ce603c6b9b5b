import Foundation
import JobStore
import PostgresNIO

/// Writes and reads for jobs no replica holds: a queued job cancelled before any claim, and the records
/// changed since a replica last looked.
extension JobDatabase {
    /// Writes `record` over a job that no replica holds (queued, or ended with no deliveries owed), for
    /// `replica`; false (nothing written) when a replica holds it now (it claimed the job first), a
    /// replica delivers it (whose writes are `saveDelivery`'s), or the job is gone. A record this ends
    /// that owes deliveries (a queued job cancelled, with a `callback_url`) passes them to `replica`
    /// under a delivery lease until `now()` + `ttl` seconds.
    public func saveUnheld(_ record: JobRecord, replica: String, ttl: Double) async throws -> Bool {
        let json = try Self.json(record)
        let deliverer = record.owesDeliveries ? replica : nil
        return try await !rows(
            """
            UPDATE jobs SET record = \(json)::jsonb, state = \(record.state.rawValue), progress = \(record.progress),
                deliverer = \(deliverer), delivery_expires = CASE WHEN \(deliverer)::text IS NOT NULL
                    THEN now() + make_interval(secs => \(ttl)) END,
                updated_at = now()
            WHERE id = \(record.id) AND holder IS NULL AND deliverer IS NULL
            RETURNING id
            """, "saving job \(record.id)", as: String.self
        ).isEmpty
    }

    /// The records written after `since` (by the database's clock; nil: every record), with the database's
    /// time of reading (`since` when nothing changed), to pass as `since` next time less the longest a
    /// write's transaction may run (a row's `updated_at` is its transaction's start).
    public func changed(since: Date?) async throws -> (records: [JobRecord], readAt: Date?) {
        let found = try await rows(
            """
            SELECT record::text, state, progress, now() FROM jobs
            WHERE updated_at > coalesce(\(since)::timestamptz, '-infinity')
            ORDER BY created_at, id
            """, "reading changed jobs", as: (String, String, Double, Date).self)
        let records = try found.map { json, state, progress, _ in
            var record = try Self.record(json)
            if state == JobState.running.rawValue { record.progress = progress }
            return record
        }
        return (records, found.first?.3 ?? since)
    }
}
