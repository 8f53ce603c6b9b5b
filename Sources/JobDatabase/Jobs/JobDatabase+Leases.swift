import Foundation
import JobStore
import PostgresNIO

/// The queue and leases: claiming a job, renewing, releasing and handing back its lease.
extension JobDatabase {
    /// Claims the oldest queued job for `replica` until the database's `now()` + `ttl` seconds, or the
    /// queued job `id` when given, but none of `excluding`; nil when there is none (or another replica is
    /// claiming it).
    ///
    /// One statement: the row is picked with `FOR UPDATE SKIP LOCKED`, so replicas claiming at once each
    /// take a different job, none waits on another's; the claim counts one more attempt (the lease's
    /// fencing token), makes the record `running` and opens the attempt's row in `runs`.
    public func claim(_ id: String? = nil, replica: String, ttl: Double, excluding: [String] = []) async throws
        -> JobClaim?
    {
        let claimed = try await rows(
            """
            WITH claimed AS (
                UPDATE jobs SET state = 'running', holder = \(replica), attempts = attempts + 1,
                    lease_expires = now() + make_interval(secs => \(ttl)), progress = 0,
                    progress_notified_at = NULL, updated_at = now(),
                    record = record || jsonb_build_object(
                        'state', 'running', 'attempts', attempts + 1, 'replica', \(replica)::text, 'progress', 0,
                        'started_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                WHERE id = (
                    SELECT id FROM jobs WHERE state = 'queued' AND (\(id)::text IS NULL OR id = \(id))
                        AND NOT (id = ANY(\(excluding)::text[]))
                    ORDER BY created_at, id
                    FOR UPDATE SKIP LOCKED
                    LIMIT 1)
                RETURNING id, record, attempts, lease_expires, cancel_requested
            ), started AS (
                INSERT INTO runs (job_id, attempt, replica, started_at)
                SELECT id, attempts, \(replica), now() FROM claimed
                ON CONFLICT (job_id, attempt) DO UPDATE SET replica = excluded.replica,
                    started_at = excluded.started_at, ended_at = NULL, outcome = NULL
            )
            SELECT id, record::text, attempts, lease_expires, cancel_requested FROM claimed
            """, "claiming a job", as: (String, String, Int, Date, Bool).self)
        guard let (jobID, json, attempt, expiresAt, cancelRequested) = claimed.first else { return nil }
        return JobClaim(
            lease: JobLease(jobID: jobID, holder: replica, attempt: attempt, expiresAt: expiresAt),
            record: try Self.record(json), cancelRequested: cancelRequested)
    }

    /// Extends the lease to the database's `now()` + `ttl` seconds and records the run's progress (0…1);
    /// nil when the lease is no longer the job's. Progress wakes the job's waiters at most once a second.
    public func renew(_ lease: JobLease, ttl: Double, progress: Double) async throws -> LeaseRenewal? {
        try await rows(
            """
            UPDATE jobs SET lease_expires = now() + make_interval(secs => \(ttl)), progress = \(progress),
                progress_notified_at = CASE
                    WHEN progress <> \(progress)
                        AND (progress_notified_at IS NULL OR progress_notified_at <= now() - interval '1 second')
                    THEN now() ELSE progress_notified_at END
            WHERE id = \(lease.jobID) AND holder = \(lease.holder) AND attempts = \(lease.attempt)
                AND state = 'running'
            RETURNING lease_expires, cancel_requested
            """, "renewing the lease of job \(lease.jobID)", as: (Date, Bool).self
        ).first.map { LeaseRenewal(expiresAt: $0.0, cancelRequested: $0.1) }
    }

    /// Writes the run's last `record` and gives up the lease, noting `outcome` as the end of the lease's
    /// run in `runs`; a `queued` record goes back to the queue, claimable at once (a cancel request waiting
    /// for it stays, for the next claim). An ended record that owes deliveries (`owesDeliveries`) passes
    /// them to the holder under a delivery lease until `now()` + `ttl` seconds, in the same statement, so
    /// no replica's death in between can leave them owed by nobody. False (nothing written) when the lease
    /// is no longer the job's.
    @discardableResult
    public func release(_ lease: JobLease, record: JobRecord, outcome: String, ttl: Double) async throws -> Bool {
        let json = try Self.json(record)
        let deliverer = record.owesDeliveries ? lease.holder : nil
        return try await !rows(
            """
            WITH released AS (
                UPDATE jobs SET record = \(json)::jsonb, state = \(record.state.rawValue),
                    progress = \(record.progress), holder = NULL, lease_expires = NULL,
                    deliverer = \(deliverer),
                    delivery_expires = CASE WHEN \(deliverer)::text IS NOT NULL
                        THEN now() + make_interval(secs => \(ttl)) END,
                    cancel_requested = cancel_requested AND \(record.state.rawValue) = 'queued',
                    queued_at = CASE WHEN \(record.state.rawValue) = 'queued' THEN now() ELSE queued_at END,
                    updated_at = now()
                WHERE id = \(lease.jobID) AND holder = \(lease.holder) AND attempts = \(lease.attempt)
                RETURNING id
            ), ended AS (
                UPDATE runs SET ended_at = now(), outcome = \(outcome)
                WHERE job_id IN (SELECT id FROM released) AND attempt = \(lease.attempt)
            )
            SELECT id FROM released
            """, "releasing job \(lease.jobID)", as: String.self
        ).isEmpty
    }

    /// Gives a running job back to the queue at once, as a draining replica does with the runs it stops:
    /// the record as it was stored, `queued` again with no progress or start time (the attempt still
    /// counts), and the run's end `requeued`. False when the lease is no longer the job's.
    @discardableResult
    public func handBack(_ lease: JobLease) async throws -> Bool {
        guard let stored = try await load(lease.jobID), stored.holder == lease.holder,
            stored.attempts == lease.attempt
        else { return false }
        var record = stored.record
        record.state = .queued
        record.progress = 0
        record.startedAt = nil
        record.markUnfetchedSources(.pending)
        // A queued record owes no deliveries: no delivery lease, whatever its time.
        return try await release(lease, record: record, outcome: "requeued", ttl: 0)
    }
}
