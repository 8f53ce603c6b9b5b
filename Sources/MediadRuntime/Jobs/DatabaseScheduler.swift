import Foundation
import JobDatabase
import JobStore
import Logging

/// Schedules jobs for replicas that share a PostgreSQL database (`--database`), and does their coordination
/// there (`ReplicaCoordination`): the queue, leases fenced by the attempt, the runs history, notifications.
///
/// The database holds every record; the data directory, shared by the replicas, holds the media and a copy
/// of each record for the job's worker. The index holds every job: loaded at start and kept current by
/// `LISTEN` (`DatabaseFollower`), so a job queued on any replica starts a claim pass here at once, and a job
/// that changes on another replica wakes the long-polls and event streams here (`keepsIndexCurrent`). A job
/// the index does not know yet (created on another replica a moment ago) is read from the database.
///
/// A claim is one statement (`FOR UPDATE SKIP LOCKED`, the lease's expiry by the database's clock) that
/// also counts the attempt, the lease's fencing token; every write of a running job carries it, so a
/// holder that stalled past its lease writes nothing once another replica took the job. Every heartbeat a
/// replica renews its leases (learning of cancel requests) and takes back the expired leases of replicas
/// that died or stalled.
final class DatabaseScheduler: ClaimingScheduler {
    let database: JobDatabase
    let settings: ReplicaSettings
    /// The leases of the jobs that run here.
    var held: [String: JobLease] = [:]
    /// The outcome of runs that ended here, by job id, noted in `runs` with the lease's release.
    var endedRuns: [String: String] = [:]
    /// The ended jobs whose deliveries (outputs, webhook) this replica makes under a delivery lease.
    var delivering: Set<String> = []
    var passes = ClaimPasses()
    /// Keeps the index current from the database's notifications.
    private(set) var follower: DatabaseFollower?
    /// Whether the database answered the last statement; `JobService.capacity` and `/readyz` read it.
    private(set) var isReachable = true

    /// When this replica last looked for job directories that no job in the database names.
    var orphansSweptAt = Date.distantPast

    init(_ settings: ReplicaSettings, database: JobDatabase) {
        self.settings = settings
        self.database = database
    }

    var replicaID: String { settings.replicaID }
    /// The notifications keep the index current, so reads are served from it without a statement.
    var keepsIndexCurrent: Bool { true }

    /// Loads every job into the index and starts following the database's notifications.
    func start(_ jobs: isolated JobService) async throws {
        let follower = DatabaseFollower()
        self.follower = follower
        try await follower.start(self, jobs)
        // The deliveries an earlier process of this replica held, resumed by `OutputDeliverer.resume`.
        let owed = try await call(jobs) { [settings] in
            try await $0.resumeDeliveries(replica: settings.replicaID, ttl: settings.leaseTTL)
        }
        delivering.formUnion(owed.map(\.id))
        startNext(jobs)
    }

    /// Every `heartbeat`: renew leases (of runs and of deliveries), take back expired ones, claim work.
    func beat(_ jobs: isolated JobService) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(settings.heartbeat * 1000)))
            guard !Task.isCancelled else { break }
            await renew(jobs)
            await renewDeliveries(jobs)
            await reclaimExpired(jobs)
            await takeOverDeliveries(jobs)
            startNext(jobs)
        }
        follower?.stop()
    }

    /// Runs one statement against the database within `JobDatabase.statementDeadline`, noting whether it answered. A
    /// statement that fails for being refused (not for its content) marks the database unreachable.
    func call<T: Sendable>(
        _ jobs: isolated JobService, _ body: @escaping @Sendable (JobDatabase) async throws -> T
    ) async throws -> T {
        do {
            let value = try await JobDatabase.within(JobDatabase.statementDeadline) { [database] in
                try await body(database)
            }
            isReachable = true
            return value
        } catch let error as DatabaseError {
            isReachable = false
            throw error
        }
    }

    /// The one-line `store_unavailable` error that an API request gets while the database cannot be used.
    static func unavailable(_ error: any Error) -> StoreError {
        var failure = StoreError(code: .storeUnavailable, message: "the job database cannot be used now: \(error)")
        failure.mayHaveTakenEffect = (error as? DatabaseError)?.refusedByServer != true
        return failure
    }

    // MARK: Queue

    /// Claims the oldest queued jobs while any job could start here: a worker and a fetch slot both free,
    /// since which kind of room the job needs is known only once it is claimed.
    func claimPass(_ jobs: isolated JobService) async {
        repeat {
            while jobs.accepting, jobs.runs.hasRoomForAnyJob {
                guard await claimOne(jobs) else { break }
            }
        } while passes.goesRoundAgain(worthIt: jobs.accepting && jobs.runs.hasRoomForAnyJob)
    }

    /// Claims one queued job and starts it (or cancels it, if asked to meanwhile); false when none was
    /// claimed.
    private func claimOne(_ jobs: isolated JobService) async -> Bool {
        let claim: JobClaim?
        do {
            // Not a job whose earlier run still goes on here: its lease was taken back (it expired while the
            // database was away), and a second run beside it would share its place and its directory and
            // never be stopped, as renewals find only the newer lease (found by DatabaseClusterTests). The
            // next renewal stops that run; then any replica, this one too, claims the job.
            let runningHere = Array(jobs.running.keys)
            claim = try await call(jobs) { [settings] in
                try await $0.claim(replica: settings.replicaID, ttl: settings.leaseTTL, excluding: runningHere)
            }
        } catch {
            // A replica shutting down closes the database under a pass that is ending anyway.
            if jobs.accepting {
                jobs.events.logger.error("claiming a job failed", metadata: ["error": .string("\(error)")])
            }
            return false
        }
        guard let claim else { return false }
        let id = claim.lease.jobID
        held[id] = claim.lease
        // The claim made the stored record `running` for this attempt; the run tracker starts it from the
        // record as it was queued and counts the same attempt.
        var queued = claim.record
        queued.state = .queued
        queued.attempts = claim.lease.attempt - 1
        queued.startedAt = nil
        jobs.records[id] = queued
        if claim.cancelRequested {
            try? await jobs.cancel(id)
            return true
        }
        jobs.runs.begin(queued, jobs)
        return true
    }

    // MARK: Reading, waiting, cancelling

    /// The record as the index has it (kept current by the database's notifications, so a read costs no
    /// statement); read from the database only when the index does not know the job, which another replica
    /// may have created a moment ago.
    func record(_ id: String, _ jobs: isolated JobService) async -> JobRecord? {
        if jobs.records[id] != nil { return jobs.localRecord(id) }
        return await storedRecord(id, jobs)
    }

    /// The record as the database has it, taken into the index; the index's when the database cannot be read.
    func storedRecord(_ id: String, _ jobs: isolated JobService) async -> JobRecord? {
        guard JobStore.isValidID(id) else { return nil }
        let stored: StoredJob?
        do {
            stored = try await call(jobs) { try await $0.load(id) }
        } catch {
            return jobs.localRecord(id)
        }
        guard jobs.running[id] == nil else { return jobs.localRecord(id) }
        guard let stored else {
            forget(id, jobs)
            return nil
        }
        remember(stored.record, jobs)
        return stored.record
    }

    /// Waits for the job's end: the change notification of a job that ends on any replica wakes the wait
    /// (`remember`); the record is read again every few seconds in case a notification was lost.
    func wait(for id: String, seconds: Double, _ jobs: isolated JobService) async -> JobRecord? {
        let deadline = Date().addingTimeInterval(seconds)
        var current = await record(id, jobs)
        while let record = current, !record.state.isTerminal, Date() < deadline {
            await jobs.park(id, seconds: min(3, deadline.timeIntervalSinceNow))
            current = await self.record(id, jobs)
        }
        return current
    }

    /// A job that runs here is cancelled or deleted as the index has it. Otherwise an ended job is deleted;
    /// a queued one is cancelled here unless a replica claims it first; a running one gets a cancel request,
    /// which reaches its holder by notification, and is waited for up to `timeout`.
    func cancelOrDelete(_ id: String, timeout: Double, _ jobs: isolated JobService) async throws -> JobRecord? {
        guard jobs.running[id] == nil else { return try await jobs.cancelOrDeleteIndexed(id, timeout: timeout) }
        let stored: StoredJob?
        do {
            stored = try await call(jobs) { try await $0.load(id) }
        } catch {
            throw Self.unavailable(error)
        }
        guard let current = stored?.record else { throw StoreError.notFound(id) }
        if current.state.isTerminal {
            try await delete(id, jobs)
            return nil
        }
        if current.state == .queued {
            jobs.records[id] = current
            do {
                try await jobs.cancel(id)
                return jobs.records[id]
            } catch let error as StoreError where error.code == .leaseLost {
                // A replica claimed it meanwhile: it is running there now.
                remember(current, jobs)
            }
        }
        do {
            _ = try await call(jobs) { try await $0.requestCancel(id) }
        } catch {
            throw Self.unavailable(error)
        }
        return await wait(for: id, seconds: timeout, jobs)
    }

    /// Deletes an ended job's row, then its directory.
    private func delete(_ id: String, _ jobs: isolated JobService) async throws {
        let deletion: JobDeletion
        do {
            deletion = try await call(jobs) { try await $0.delete(id) }
        } catch {
            throw Self.unavailable(error)
        }
        forget(id, jobs)
        guard deletion != .leased else { return }
        try await jobs.io { [store = jobs.store] in try store.delete(id: id) }
        await jobs.removeObjects(of: [id])
    }

    /// The database's count, or the index's while the database cannot be read.
    func reportedQueueDepth(_ jobs: isolated JobService) async -> Int {
        (try? await call(jobs) { try await $0.queueDepth() }) ?? queuedCount(jobs)
    }

    // MARK: Webhooks

    /// Only the jobs whose delivery lease this replica holds (an earlier process of it did, `start`), so
    /// that one replica delivers each job and is the only writer of its `deliveries` and `notifications`.
    func resumesDeliveries(of record: JobRecord) -> Bool {
        delivering.contains(record.id)
    }
}
