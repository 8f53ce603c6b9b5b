import Foundation
import JobStore
import MediaJobs
import PostgresNIO

/// Job records: inserting, reading, the fenced save of a running job, deleting, and the list by keyset.
extension JobDatabase {
    // Creation times are stored as whole milliseconds after the epoch, `timestamptz 'epoch' + ms * 1 ms`
    // (exact), the key of the list's positions.

    /// Stores a new job (a queued one wakes idle replicas). False when a job of that id exists already.
    @discardableResult
    public func insert(_ record: JobRecord) async throws -> Bool {
        let json = try Self.json(record)
        let position = JobListPosition(record: record)
        let inserted = try await rows(
            """
            INSERT INTO jobs (id, record, state, kind, owner, created_at, queued_at, attempts)
            VALUES (\(record.id), \(json)::jsonb, \(record.state.rawValue), \(record.kind.rawValue), \(record.owner),
                timestamptz 'epoch' + \(position.milliseconds)::float8 * interval '1 millisecond',
                CASE WHEN \(record.state.rawValue) = 'queued' THEN now() END, \(record.attempts))
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """, "storing job \(record.id)", as: String.self)
        return !inserted.isEmpty
    }

    /// The job `id` as stored, with its lease; nil when there is none.
    public func load(_ id: String) async throws -> StoredJob? {
        try await rows(
            """
            SELECT record::text, holder, lease_expires, attempts, cancel_requested, progress, deliverer,
                delivery_expires FROM jobs
            WHERE id = \(id)
            """, "reading job \(id)", as: (String, String?, Date?, Int, Bool, Double, String?, Date?).self
        ).first.map(Self.storedJob)
    }

    /// Writes `record` for the holder of `lease`, keeping the lease; false (nothing written) when the lease
    /// is no longer the job's (another claim took it over, or it was taken back) or the job is gone.
    public func save(_ record: JobRecord, lease: JobLease) async throws -> Bool {
        let json = try Self.json(record)
        return try await !rows(
            """
            UPDATE jobs SET record = \(json)::jsonb, state = \(record.state.rawValue), updated_at = now()
            WHERE id = \(lease.jobID) AND holder = \(lease.holder) AND attempts = \(lease.attempt)
            RETURNING id
            """, "saving job \(lease.jobID)", as: String.self
        ).isEmpty
    }

    /// Which of `ids` the database has a job of.
    public func existing(_ ids: [String]) async throws -> Set<String> {
        Set(try await rows("SELECT id FROM jobs WHERE id = ANY(\(ids))", "looking up jobs", as: String.self))
    }

    /// Deletes the job and its runs, unless it runs under a live lease (its holder ends it first).
    public func delete(_ id: String) async throws -> JobDeletion {
        let deleted = try await rows(
            """
            WITH deleted AS (
                DELETE FROM jobs WHERE id = \(id) AND NOT (state = 'running' AND lease_expires > now())
                RETURNING id
            )
            SELECT (SELECT count(*) FROM deleted), (SELECT count(*) FROM jobs WHERE id = \(id))
            """, "deleting job \(id)", as: (Int, Int).self)
        guard let (removed, found) = deleted.first else { return .notFound }
        return removed > 0 ? .deleted : found > 0 ? .leased : .notFound
    }

    /// Up to `limit` jobs matching `filter`, newest first (by creation time, then id), after `position`
    /// (nil: from the newest). Each job appears on exactly one page however the list changes in between,
    /// unless it is deleted or created older than the position.
    public func list(_ filter: JobListFilter = JobListFilter(), after position: JobListPosition?, limit: Int)
        async throws -> JobListPage
    {
        let found = try await rows(
            """
            SELECT record::text, state, progress, round(extract(epoch FROM created_at) * 1000)::bigint, id FROM jobs
            WHERE (\(filter.state?.rawValue)::text IS NULL OR state = \(filter.state?.rawValue))
                AND (\(filter.kind?.rawValue)::text IS NULL OR kind = \(filter.kind?.rawValue))
                AND (\(filter.owner)::text IS NULL OR owner = \(filter.owner))
                AND (created_at, id) < (
                    coalesce(timestamptz 'epoch' + \(position?.milliseconds)::float8 * interval '1 millisecond',
                        'infinity'),
                    coalesce(\(position?.id), ''))
            ORDER BY created_at DESC, id DESC
            LIMIT \(max(0, limit) + 1)
            """, "listing jobs", as: (String, String, Double, Int64, String).self)
        let page = found.prefix(max(0, limit))
        let records = try page.map { json, state, progress, _, _ in
            var record = try Self.record(json)
            if state == JobState.running.rawValue { record.progress = progress }
            return record
        }
        // The next position is the last row's key as stored, never recomputed from a decoded date.
        let next = found.count > page.count ? page.last.map { JobListPosition(milliseconds: $0.3, id: $0.4) } : nil
        return JobListPage(records: records, next: next)
    }

    /// A row of `record::text, holder, lease_expires, attempts, cancel_requested, progress, deliverer,
    /// delivery_expires`.
    static func storedJob(_ row: (String, String?, Date?, Int, Bool, Double, String?, Date?)) throws -> StoredJob {
        var record = try record(row.0)
        if record.state == .running { record.progress = row.5 }
        return StoredJob(
            record: record, holder: row.1, leaseExpiresAt: row.2, attempts: row.3, cancelRequested: row.4,
            deliverer: row.6, deliveryExpiresAt: row.7)
    }
}
