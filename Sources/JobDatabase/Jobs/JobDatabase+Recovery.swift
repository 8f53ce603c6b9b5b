import Foundation
import JobStore
import PostgresNIO

/// What other replicas do to a job they do not hold: taking back expired leases, asking for a cancel;
/// and the queue's depth and the runs of a job.
extension JobDatabase {
    /// Takes back the jobs whose lease expired (by the database's clock): their holder died or stalled.
    /// Each goes as `Recovery` says a job cut short goes, its attempts the ones the database counted: back
    /// to the queue (and claimable) while it has had fewer than `maxAttempts` runs, else `failed` with code
    /// `interrupted`. Returns the records as left. The run of the lost attempt stays open in `runs`. A job
    /// failed so that owes deliveries (its webhook) passes them to `replica` under a delivery lease until
    /// `now()` + `ttl` seconds, as the end of a run does.
    ///
    /// One transaction; the rows are locked with `SKIP LOCKED`, so replicas doing this at once each take
    /// back different jobs, and a holder renewing at that moment either renews first or finds its lease
    /// gone.
    public func reclaimExpired(by replica: String, ttl: Double, limit: Int = 100) async throws -> [JobRecord] {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                var expired: [(String, Int, Date)] = []
                let rows = try await connection.query(
                    """
                    SELECT record::text, attempts, now() FROM jobs
                    WHERE state = 'running' AND lease_expires <= now()
                    ORDER BY lease_expires
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                for try await row in rows.decode((String, Int, Date).self) { expired.append(row) }
                var recovered: [JobRecord] = []
                for (json, attempts, now) in expired {
                    var record = try Self.record(json)
                    record.attempts = attempts
                    record = Recovery.recover(record, maxAttempts: Self.maxAttempts, now: now)
                    let stored = try Self.json(record)
                    let deliverer = record.owesDeliveries ? replica : nil
                    try await connection.query(
                        """
                        UPDATE jobs SET record = \(stored)::jsonb, state = \(record.state.rawValue), progress = 0,
                            holder = NULL, lease_expires = NULL, progress_notified_at = NULL,
                            deliverer = \(deliverer), delivery_expires = CASE WHEN \(deliverer)::text IS NOT NULL
                                THEN now() + make_interval(secs => \(ttl)) END,
                            cancel_requested = cancel_requested AND \(record.state.rawValue) = 'queued',
                            queued_at = CASE WHEN \(record.state.rawValue) = 'queued' THEN now() ELSE queued_at END,
                            updated_at = now()
                        WHERE id = \(record.id) AND attempts = \(attempts)
                        """, logger: logger)
                    recovered.append(record)
                }
                return recovered
            }
        } catch {
            throw DatabaseError.query(error, "taking back expired leases")
        }
    }

    /// Asks for the job to be cancelled: its holder learns it at its next renewal (and from the change
    /// notification), a queued job's next claim with `JobClaim.cancelRequested`. Returns the job as it is
    /// now (a finished one unchanged); nil when there is none.
    public func requestCancel(_ id: String) async throws -> StoredJob? {
        let updated = try await rows(
            """
            UPDATE jobs SET cancel_requested = true, updated_at = now()
            WHERE id = \(id) AND state IN ('queued', 'running')
            RETURNING record::text, holder, lease_expires, attempts, cancel_requested, progress, deliverer,
                delivery_expires
            """, "requesting the cancel of job \(id)",
            as: (String, String?, Date?, Int, Bool, Double, String?, Date?).self)
        if let row = updated.first { return try Self.storedJob(row) }
        return try await load(id)
    }

    /// How many jobs wait in the queue.
    public func queueDepth() async throws -> Int {
        try await rows("SELECT count(*) FROM jobs WHERE state = 'queued'", "counting the queue", as: Int.self)
            .first ?? 0
    }

    /// The runs of the job, oldest first.
    public func runs(of id: String) async throws -> [JobRun] {
        try await rows(
            """
            SELECT job_id, attempt, replica, started_at, ended_at, outcome FROM runs
            WHERE job_id = \(id) ORDER BY attempt
            """, "reading the runs of job \(id)", as: (String, Int, String, Date, Date?, String?).self
        ).map {
            JobRun(jobID: $0.0, attempt: $0.1, replica: $0.2, startedAt: $0.3, endedAt: $0.4, outcome: $0.5)
        }
    }
}
