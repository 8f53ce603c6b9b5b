import Foundation
import JobStore
import Logging

/// Schedules jobs for replicas sharing one store (see `ReplicaSettings` and `Lease`), and does their
/// coordination: leases, the heartbeat and the `runs` file (`ReplicaCoordination`).
///
/// Any replica accepts jobs and answers for any job. There is no queue of its own: the index of every
/// job, refreshed from the store every heartbeat, is the queue, and a record this replica does not run is
/// read from disk when asked for. It runs a job only after claiming the job's lease, renews its leases
/// every heartbeat (looking for cancel requests at the same time), and claims queued jobs, and running
/// jobs whose lease has expired, whenever it has a free worker. Every run appends `<replica> <attempt>
/// <time> start` and `… end <outcome>` to the job's `runs` file.
final class LeaseScheduler: ClaimingScheduler {
    private let settings: ReplicaSettings
    private let leases: HeldLeases
    /// When a job that could not be claimed is worth trying again.
    private var claimRetry: [String: Date] = [:]
    var passes = ClaimPasses()
    /// When the index was last refreshed from the store.
    private var lastRescan = Date.distantPast
    /// The attempt and outcome of runs that ended here, by job id, until their record is saved.
    private var endedRuns: [String: (attempt: Int, event: String)] = [:]

    init(_ settings: ReplicaSettings, store: JobStore) {
        self.settings = settings
        leases = HeldLeases(store: store, settings: settings)
    }

    var replicaID: String { settings.replicaID }

    /// Loads the index (sparing leftovers that may be other replicas' work under way) and gives up leases a
    /// previous process with this replica id left behind.
    func start(_ jobs: isolated JobService) async throws {
        let loaded = try await jobs.loadStore(keepingLeftoversYoungerThan: ReplicaSettings.leftoverAge)
        for record in loaded { jobs.records[record.id] = record }
        try await leases.releaseLeftBehind(loaded.filter { !$0.state.isTerminal }.map(\.id), jobs)
        lastRescan = Date()
        startNext(jobs)
    }

    /// Every `heartbeat`: renew leases, pass on cancel requests, refresh the index, claim work.
    func beat(_ jobs: isolated JobService) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(settings.heartbeat * 1000)))
            guard !Task.isCancelled else { return }
            await leases.renew(jobs)
            await rescan(jobs)
            startNext(jobs)
        }
    }

    // MARK: Queue

    /// Claims queued jobs, and running ones whose holder is gone, oldest first, while the run tracker has
    /// room.
    func claimPass(_ jobs: isolated JobService) async {
        repeat {
            var tries = 0
            while jobs.accepting, !jobs.runs.isFull, tries < 4 * jobs.runs.capacity,
                let id = nextCandidate(jobs)
            {
                tries += 1
                await claim(id, jobs)
            }
        } while passes.goesRoundAgain(worthIt: jobs.accepting && !jobs.runs.isFull)
    }

    /// The oldest job that is queued, or running elsewhere, not known to be held, and that the run tracker has
    /// room for (a worker, or a fetch slot for a job with URL inputs to fetch).
    private func nextCandidate(_ jobs: isolated JobService) -> String? {
        let now = Date()
        return jobs.records.all.filter {
            ($0.state == .queued || $0.state == .running) && jobs.running[$0.id] == nil
                && (claimRetry[$0.id] ?? .distantPast) <= now && jobs.runs.hasRoom(for: $0)
        }.min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }?.id
    }

    /// Claims the job's lease and, with it, runs the job as the store now has it: a queued job, or a
    /// running one whose holder is gone (interrupted: run again, or failed after three attempts).
    private func claim(_ id: String, _ jobs: isolated JobService) async {
        claimRetry[id] = Date().addingTimeInterval(settings.heartbeat)
        let claimed: (ClaimOutcome, JobRecord?, Bool)
        do {
            claimed = try await leases.io(jobs) { [store = jobs.store, settings] in
                let outcome = try store.claim(id: id, replica: settings.replicaID, ttl: settings.leaseTTL)
                guard case .claimed = outcome else { return (outcome, nil, false) }
                return (outcome, try? store.load(id: id), store.isCancelRequested(id: id))
            }
        } catch {
            jobs.events.logger.error(
                "claiming a job failed", metadata: ["job_id": .string(id), "error": .string("\(error)")])
            return
        }
        switch claimed.0 {
        case .gone:
            jobs.records[id] = nil
            claimRetry[id] = nil
        case .held(let lease):
            // Tried again when the lease expires, or sooner if the record changes (see `remember`); at
            // least every ten heartbeats in case the change came and went between two rescans.
            claimRetry[id] = max(
                Date().addingTimeInterval(0.1), min(lease.expiresAt, Date() + 10 * settings.heartbeat))
        case .lostRace:
            break
        case .claimed(let lease):
            guard let record = claimed.1, jobs.accepting, jobs.running[id] == nil, !record.state.isTerminal else {
                if let record = claimed.1 { remember(record, jobs) }
                return await leases.release(lease, of: id, jobs)
            }
            leases.hold(lease, of: id)
            jobs.records[id] = record
            claimRetry[id] = nil
            if claimed.2 {
                try? await jobs.cancel(id)
                return
            }
            let recovered = Recovery.recover(record, now: Date())
            guard recovered.state == .queued else {
                jobs.records[id] = recovered
                try? await jobs.save(recovered)
                await leases.release(id, jobs)
                return jobs.wakeAll(id)
            }
            guard jobs.runs.hasRoom(for: recovered) else {
                // Another replica fetched its inputs since the index read it: it needs a worker, not a fetch
                // slot, and none is free. Left to a later pass.
                claimRetry[id] = Date().addingTimeInterval(settings.heartbeat)
                return await leases.release(id, jobs)
            }
            jobs.runs.begin(recovered, jobs)
        }
    }

    // MARK: Reading, waiting, cancelling

    /// The record as the store has it, unless the job runs here.
    func record(_ id: String, _ jobs: isolated JobService) async -> JobRecord? {
        jobs.running[id] == nil ? await storedRecord(id, jobs) : jobs.localRecord(id)
    }

    /// Rescans the store unless that was done within the last second (or heartbeat, if shorter).
    func refresh(_ jobs: isolated JobService) async {
        if Date().timeIntervalSince(lastRescan) > min(1, settings.heartbeat) { await rescan(jobs) }
    }

    /// Reads the record again every `ReplicaSettings.pollInterval`, since another replica may be running it.
    func wait(for id: String, seconds: Double, _ jobs: isolated JobService) async -> JobRecord? {
        let deadline = Date().addingTimeInterval(seconds)
        var current = await record(id, jobs)
        while let record = current, !record.state.isTerminal, Date() < deadline {
            await jobs.park(id, seconds: min(ReplicaSettings.pollInterval, deadline.timeIntervalSinceNow))
            current = await self.record(id, jobs)
        }
        return current
    }

    /// Refreshes the index: drops deleted jobs, adds new ones, and re-reads every unfinished job that does
    /// not run here (finished ones never change).
    private func rescan(_ jobs: isolated JobService) async {
        let known = jobs.records.states
        let owned = Set(jobs.running.keys)
        let found = try? await jobs.io { [store = jobs.store] () -> (Set<String>, [JobRecord]) in
            let ids = Set(try store.jobIDs())
            let fresh = ids.filter { !owned.contains($0) && known[$0]?.isTerminal != true }
                .compactMap { try? store.load(id: $0) }
            return (ids, fresh)
        }
        lastRescan = Date()
        guard let (ids, fresh) = found else { return }
        for id in known.keys where !ids.contains(id) && jobs.running[id] == nil {
            jobs.records[id] = nil
            claimRetry[id] = nil
        }
        for record in fresh { remember(record, jobs) }
    }

    /// The record as the store has it now, with the progress its holder last reported.
    private func storedRecord(_ id: String, _ jobs: isolated JobService) async -> JobRecord? {
        guard JobStore.isValidID(id) else { return nil }
        let loaded: JobRecord?
        do {
            loaded = try await jobs.io { [store = jobs.store] in
                guard var record = try store.load(id: id) else { return nil }
                if record.state == .running, let lease = try? store.currentLease(id: id), lease.isLive(at: Date()) {
                    record.progress = lease.progress
                }
                return record
            }
        } catch {
            return jobs.localRecord(id)
        }
        guard jobs.running[id] == nil else { return jobs.localRecord(id) }
        guard let loaded else {
            jobs.records[id] = nil
            return nil
        }
        remember(loaded, jobs)
        return loaded.state.isTerminal ? loaded : jobs.records[id]
    }

    /// Takes a record read from disk into the index, unless this server runs the job or knows it ended.
    /// A job whose state changed (a holder requeued it, say) is worth claiming again at once.
    private func remember(_ record: JobRecord, _ jobs: isolated JobService) {
        guard jobs.running[record.id] == nil else { return }
        if jobs.records[record.id]?.state.isTerminal == true, !record.state.isTerminal { return }
        if jobs.records[record.id]?.state != record.state { claimRetry[record.id] = nil }
        jobs.records[record.id] = record
    }

    /// A job that runs here is cancelled or deleted as the index has it. Otherwise a finished job is deleted;
    /// a queued one (or one whose holder is gone) is claimed and cancelled here; one running on another
    /// replica gets a cancel request that its holder's heartbeat acts on, and is waited for up to `timeout`.
    func cancelOrDelete(_ id: String, timeout: Double, _ jobs: isolated JobService) async throws -> JobRecord? {
        guard jobs.running[id] == nil else { return try await jobs.cancelOrDeleteIndexed(id, timeout: timeout) }
        guard let current = await storedRecord(id, jobs) else { throw StoreError.notFound(id) }
        if current.state.isTerminal {
            jobs.records[id] = nil
            try await jobs.io { [store = jobs.store] in try store.delete(id: id) }
            await jobs.removeObjects(of: [id])
            return nil
        }
        switch try await leases.claim(id, jobs) {
        case .claimed(let lease):
            leases.hold(lease, of: id)
            let loaded = try? await jobs.io { [store = jobs.store] in try store.load(id: id) }
            guard let fresh = loaded ?? nil, !fresh.state.isTerminal else {
                await leases.release(id, jobs)
                return await storedRecord(id, jobs)
            }
            jobs.records[id] = fresh
            try await jobs.cancel(id)
            return jobs.records[id]
        case .gone:
            jobs.records[id] = nil
            throw StoreError.notFound(id)
        case .held, .lostRace:
            try await jobs.io { [store = jobs.store] in try store.requestCancel(id: id) }
            jobs.running[id]?.requestStop(.cancelledByUser)
            return await wait(for: id, seconds: timeout, jobs)
        }
    }

    // MARK: Runs

    /// Appends `<replica> <attempt> <time> start` to the job's `runs` file.
    func recordRunStart(_ record: JobRecord, _ jobs: isolated JobService) async {
        await appendRun(record.id, attempt: record.attempts, "start", jobs)
    }

    /// Keeps the end until the record that says so is saved: a replica that dies in between leaves the
    /// run open (its record still `running`, the job taken over when the lease expires), never an `end
    /// succeeded` line beside a record that another replica then runs again.
    func runEnded(_ record: JobRecord, _ event: String) {
        endedRuns[record.id] = (record.attempts, event)
    }

    /// Appends the `end` of the job's run kept by `runEnded`, if any.
    private func noteRunEnd(_ id: String, _ jobs: isolated JobService) async {
        guard let (attempt, event) = endedRuns.removeValue(forKey: id) else { return }
        await appendRun(id, attempt: attempt, "end " + event, jobs)
    }

    /// Appends `<replica> <attempt> <time> <event>` to the job's `runs` file.
    private func appendRun(_ id: String, attempt: Int, _ event: String, _ jobs: isolated JobService) async {
        let line = "\(settings.replicaID) \(attempt) \(JobJSON.rfc3339(Date())) \(event)"
        try? await jobs.io { [store = jobs.store] in try store.appendRun(id: id, line) }
    }

    /// The job's directory, written by `JobStore.create`, is what other replicas find at their next rescan.
    func publish(_ record: JobRecord, _ jobs: isolated JobService) async throws {}

    /// Saves the record in the store, while this replica holds the job's lease if it has one.
    func save(_ record: JobRecord, _ jobs: isolated JobService) async throws {
        let lease = leases[record.id]
        try await jobs.io { [store = jobs.store] in
            if let lease, !store.holds(lease, id: record.id) { throw StoreError.leaseLost(record.id) }
            try store.save(record)
        }
    }

    /// Other replicas' changes reach the index only at a rescan.
    var keepsIndexCurrent: Bool { false }

    /// The data directory's own reachability is what `/readyz` checks.
    var isReachable: Bool { true }

    /// The record is saved: the run's end is noted, then the lease goes.
    func release(_ id: String, _ jobs: isolated JobService) async {
        await noteRunEnd(id, jobs)
        await leases.release(id, jobs)
    }

    func leaseLost(_ id: String, _ jobs: isolated JobService) async {
        await noteRunEnd(id, jobs)
        leases.forget(id)
        jobs.records[id] = await storedRecord(id, jobs)
    }

    /// The lease is left to expire, and another replica runs the job again. The record was not saved, so
    /// the run's end is not noted: the run stays open, as a replica's that died.
    func abandon(_ id: String) {
        endedRuns[id] = nil
        leases.forget(id)
    }

    // MARK: Retention and webhooks

    func deleteExpired(olderThan retention: TimeInterval, _ jobs: isolated JobService) async {
        await deleteExpired(olderThan: retention, jobs) { id, jobs in
            let deleted = try? await jobs.io { [store = jobs.store] in
                if (try? store.currentLease(id: id))?.isLive(at: Date()) == true { return false }
                try store.delete(id: id)
                return true
            }
            if deleted == true { await jobs.removeObjects(of: [id]) }
        }
    }

    /// Only the jobs whose last run was this replica's, so that one replica delivers each job and is the
    /// only writer of its record's `notifications`.
    func resumesDeliveries(of record: JobRecord) -> Bool {
        record.replica == settings.replicaID
    }
}
