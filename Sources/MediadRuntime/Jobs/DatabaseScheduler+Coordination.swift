import Foundation
import JobDatabase
import JobStore
import Logging

/// The replica's part in the database: saving and publishing records, leases, runs, and the index kept
/// current from what other replicas write.
extension DatabaseScheduler {
    // MARK: Records

    /// Writes a new job's record, which queues it for every replica (`publish` before the API answers, so
    /// any replica asked for it next finds it). Throws `store_unavailable` when the database cannot be used.
    func publish(_ record: JobRecord, _ jobs: isolated JobService) async throws {
        do {
            _ = try await call(jobs) { try await $0.insert(record) }
        } catch {
            throw Self.unavailable(error)
        }
    }

    /// Saves a record in the database, fenced by the job's lease when it runs here (`lease_lost` when
    /// another replica took it over), then the worker's copy in the job's directory. A database that does
    /// not answer is tried again for up to half the lease's time: a restart of PostgreSQL loses no run's end.
    ///
    /// The record that ends a run here (any state but `running` while the lease is held: ended, or queued
    /// again by a drain) is saved in the same statement that releases the lease and notes the run's end,
    /// so a replica that dies in between cannot leave an ended job held, its run open, for good.
    func save(_ record: JobRecord, _ jobs: isolated JobService) async throws {
        let lease = held[record.id]
        let endsRun = lease != nil && record.state != .running
        let outcome = endedRuns[record.id] ?? record.state.rawValue
        let saved: Bool
        do {
            saved = try await retrying(jobs) { [replicaID, ttl = settings.leaseTTL] database in
                guard let lease else { return try await database.saveUnheld(record, replica: replicaID, ttl: ttl) }
                if endsRun { return try await database.release(lease, record: record, outcome: outcome, ttl: ttl) }
                return try await database.save(record, lease: lease)
            }
        } catch let error as DatabaseError {
            throw Self.unavailable(error)
        }
        guard saved else { throw StoreError.leaseLost(record.id) }
        // The statement that ended the job gave its owed deliveries to this replica.
        if record.owesDeliveries { delivering.insert(record.id) }
        if endsRun {
            held[record.id] = nil
            endedRuns[record.id] = nil
        }
        try await jobs.io { [store = jobs.store] in try store.save(record) }
    }

    /// Runs `body` until the database answers it, for up to half the lease's time: the end of a run, once
    /// the run is over, is written however briefly the database is away.
    func retrying<T: Sendable>(
        _ jobs: isolated JobService, _ body: @escaping @Sendable (JobDatabase) async throws -> T
    ) async throws -> T {
        let deadline = Date().addingTimeInterval(settings.leaseTTL / 2)
        while true {
            do {
                return try await call(jobs, body)
            } catch let error as DatabaseError {
                guard Date() < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Brings the index up to date with the records written since the last look (at most once a second),
    /// before it is listed whole.
    func refresh(_ jobs: isolated JobService) async {
        await follower?.catchUp(self, jobs, atMostEvery: 1)
    }

    /// Takes a record read from the database into the index, unless the job runs here, and wakes those
    /// waiting on it.
    func remember(_ record: JobRecord, _ jobs: isolated JobService) {
        guard jobs.running[record.id] == nil else { return }
        jobs.records[record.id] = record
        jobs.wakeAll(record.id)
    }

    /// The job is gone from the database: it leaves the index and its waiters wake.
    func forget(_ id: String, _ jobs: isolated JobService) {
        guard jobs.running[id] == nil else { return }
        jobs.records[id] = nil
        jobs.wakeAll(id)
    }

    /// The database says a job changed: a job that runs here learns of a cancel request, any other takes
    /// the row the notification carries into the index, or is read again when it carries only the id.
    ///
    /// A change this replica wrote is in its index already (`JobService` puts a record there before it
    /// saves it), and applying its notification, which may arrive after a later write of the same job,
    /// could put an older record back: it is left alone.
    func changed(_ change: JobChange, _ jobs: isolated JobService) async {
        let id = change.id
        guard let run = jobs.running[id] else {
            guard let stored = change.stored else {
                _ = await storedRecord(id, jobs)
                return
            }
            if change.writer != settings.replicaID { remember(stored.record, jobs) }
            return
        }
        guard let lease = held[id] else { return }
        let current: StoredJob?
        if let stored = change.stored {
            current = stored
        } else {
            current = try? await call(jobs) { try await $0.load(id) }
        }
        guard let current else { return }
        if current.cancelRequested, current.attempts == lease.attempt { run.requestStop(.cancelledByUser) }
    }

    // MARK: Leases

    /// Renews the lease of every job that runs here, reporting its progress, and stops the runs whose lease
    /// another replica took or whose job has a cancel request.
    func renew(_ jobs: isolated JobService) async {
        for (id, lease) in held {
            guard let run = jobs.running[id] else { continue }
            let progress = run.progress
            let renewal: LeaseRenewal?
            do {
                renewal = try await call(jobs) { [ttl = settings.leaseTTL] in
                    try await $0.renew(lease, ttl: ttl, progress: progress)
                }
            } catch {
                // Tried again next beat, before the lease expires.
                continue
            }
            guard held[id] == lease else { continue }
            guard let renewal else {
                run.requestStop(.leaseLost)
                continue
            }
            held[id]?.expiresAt = renewal.expiresAt
            if renewal.cancelRequested { run.requestStop(.cancelledByUser) }
        }
    }

    /// Takes back the jobs whose holder's lease expired: queued again (a claim pass follows), or failed
    /// `interrupted` after three attempts, whose deliveries (its webhook) this replica then makes.
    func reclaimExpired(_ jobs: isolated JobService) async {
        let reclaimed = try? await call(jobs) { [settings] in
            try await $0.reclaimExpired(by: settings.replicaID, ttl: settings.leaseTTL)
        }
        for record in reclaimed ?? [] {
            jobs.events.logger.warning(
                "took back a job whose replica stopped renewing its lease",
                metadata: ["job_id": .string(record.id), "to": .string(record.state.rawValue)])
            remember(record, jobs)
            if record.owesDeliveries {
                delivering.insert(record.id)
                jobs.resumeDeliveries(of: record)
            }
        }
    }

    // MARK: Runs

    /// The claim opened the attempt's row in `runs` already, in the same statement.
    func recordRunStart(_ record: JobRecord, _ jobs: isolated JobService) async {}

    /// Keeps the outcome for the release, which notes it in `runs` with the record that says so.
    func runEnded(_ record: JobRecord, _ event: String) {
        endedRuns[record.id] = event
    }

    /// The record is saved: the lease goes, the run's end is noted, and the job, if queued again, is
    /// claimable by any replica at once. A run's end saved by `save` went with its release already; this
    /// releases a lease still held.
    func release(_ id: String, _ jobs: isolated JobService) async {
        guard let lease = held.removeValue(forKey: id), let record = jobs.records[id] else { return }
        let outcome = endedRuns.removeValue(forKey: id) ?? record.state.rawValue
        do {
            // Retried as the save before it was: a release lost to a blip left an ended job with a holder
            // and its run open for good, since only `running` jobs are taken back when a lease expires
            // (found by DatabaseClusterTests, the database stopped just after a run's end was saved).
            let released = try await retrying(jobs) { [ttl = settings.leaseTTL] in
                try await $0.release(lease, record: record, outcome: outcome, ttl: ttl)
            }
            if released, record.owesDeliveries { delivering.insert(id) }
        } catch {
            // Past that the saved record stands (a queued one is claimable all the same); the job keeps
            // its holder and its run stays open in `runs`.
            jobs.events.logger.error(
                "releasing a job's lease failed", metadata: ["job_id": .string(id), "error": .string("\(error)")])
        }
    }

    /// Another replica took the job over: the index takes the database's record.
    func leaseLost(_ id: String, _ jobs: isolated JobService) async {
        endedRuns[id] = nil
        held[id] = nil
        _ = await storedRecord(id, jobs)
    }

    /// The record was not saved: the lease is left to expire and the run stays open, as a dead replica's.
    func abandon(_ id: String) {
        endedRuns[id] = nil
        held[id] = nil
    }
}
