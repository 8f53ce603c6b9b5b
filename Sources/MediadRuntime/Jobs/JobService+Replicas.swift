import Foundation
import JobStore
import MediaCore

/// Shared-store mode: several servers on one data directory (see `ReplicaSettings` and `Lease`).
///
/// Any replica accepts jobs and answers for any job. Its index of all jobs is refreshed from the store
/// every heartbeat; a record it does not run is read from disk when asked for. It runs a job only after
/// claiming the job's lease, renews its leases every heartbeat (looking for cancel requests at the same
/// time), and claims queued jobs, and running jobs whose lease has expired, whenever it has a free worker.
/// Every run appends `<replica> <attempt> <time> start` and `… end <outcome>` to the job's `runs` file.
extension JobService {
    /// Loads the index (sparing leftovers that may be other replicas' work under way) and gives up leases a
    /// previous process with this replica id left behind; `beat` is the heartbeat.
    package func startShared(_ settings: ReplicaSettings) async throws {
        let scan = try await io { [store] in
            try store.loadAll(keepingLeftoversYoungerThan: ReplicaSettings.leftoverAge)
        }
        for unreadable in scan.unreadable {
            events.logger.error(
                "job is unreadable and was skipped",
                metadata: ["job_id": .string(unreadable.id), "error": .string("\(unreadable.error)")])
        }
        for record in scan.records { records[record.id] = record }
        let unfinished = scan.records.filter { !$0.state.isTerminal }.map(\.id)
        try await leaseIO { [store] in
            for id in unfinished {
                if let lease = try? store.currentLease(id: id), lease.replica == settings.replicaID {
                    try store.release(lease, id: id)
                }
            }
        }
        lastRescan = Date()
        startNext()
    }

    /// Every `heartbeat` until the calling task is cancelled (`JobLifecycle` runs it until shutdown): renew
    /// leases, pass on cancel requests, refresh the index, claim work.
    package func beat(_ settings: ReplicaSettings) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(settings.heartbeat * 1000)))
            guard !Task.isCancelled else { return }
            await renewLeases(settings)
            await rescan()
            startNext()
        }
    }

    private func renewLeases(_ settings: ReplicaSettings) async {
        let held = leases.compactMap { id, lease in running[id].map { (id, lease, $0.progress) } }
        guard !held.isEmpty else { return }
        let renewals: [(String, Int, Lease?, Bool)]
        do {
            renewals = try await leaseIO { [store] in
                held.map { id, lease, progress in
                    // An I/O error keeps the old lease: renewal is tried again next beat, before it expires.
                    let renewed: Lease?
                    do {
                        renewed = try store.renew(lease, id: id, ttl: settings.leaseTTL, progress: progress)
                    } catch {
                        renewed = lease
                    }
                    return (id, lease.generation, renewed, store.isCancelRequested(id: id))
                }
            }
        } catch {
            return
        }
        for (id, generation, renewed, cancel) in renewals {
            guard let run = running[id], leases[id]?.generation == generation else { continue }
            if let renewed { leases[id] = renewed } else { run.requestStop(.leaseLost) }
            if cancel { run.requestStop(.cancelledByUser) }
        }
    }

    /// Refreshes the index: drops deleted jobs, adds new ones, and re-reads every unfinished job that does
    /// not run here (finished ones never change).
    package func rescan() async {
        let known = records.states
        let owned = Set(running.keys)
        let found = try? await io { [store] () -> (Set<String>, [JobRecord]) in
            let ids = Set(try store.jobIDs())
            let fresh = ids.filter { !owned.contains($0) && known[$0]?.isTerminal != true }
                .compactMap { try? store.load(id: $0) }
            return (ids, fresh)
        }
        lastRescan = Date()
        guard let (ids, fresh) = found else { return }
        for id in known.keys where !ids.contains(id) && running[id] == nil {
            records[id] = nil
            claimRetry[id] = nil
        }
        for record in fresh { remember(record) }
    }

    /// The record as the store has it now, with the progress its holder last reported.
    package func storedRecord(_ id: String) async -> JobRecord? {
        guard JobStore.isValidID(id) else { return nil }
        let loaded: JobRecord?
        do {
            loaded = try await io { [store] in
                guard var record = try store.load(id: id) else { return nil }
                if record.state == .running, let lease = try? store.currentLease(id: id), lease.isLive(at: Date()) {
                    record.progress = lease.progress
                }
                return record
            }
        } catch {
            return localRecord(id)
        }
        guard running[id] == nil else { return localRecord(id) }
        guard let loaded else {
            records[id] = nil
            return nil
        }
        remember(loaded)
        return loaded.state.isTerminal ? loaded : records[id]
    }

    /// Takes a record read from disk into the index, unless this server runs the job or knows it ended.
    /// A job whose state changed (a holder requeued it, say) is worth claiming again at once.
    private func remember(_ record: JobRecord) {
        guard running[record.id] == nil else { return }
        if records[record.id]?.state.isTerminal == true, !record.state.isTerminal { return }
        if records[record.id]?.state != record.state { claimRetry[record.id] = nil }
        records[record.id] = record
    }

    // MARK: Claiming

    /// Starts a claim pass unless one is under way (which then goes round once more).
    package func claimJobs() {
        guard !claiming else {
            claimAgain = true
            return
        }
        claiming = true
        Task { await self.claimPass() }
    }

    private func claimPass() async {
        repeat {
            claimAgain = false
            var tries = 0
            while accepting, running.count < workers, tries < 4 * workers, let id = nextCandidate() {
                tries += 1
                await claim(id)
            }
        } while claimAgain && accepting && running.count < workers
        claiming = false
    }

    /// The oldest job that is queued, or running elsewhere, and not known to be held.
    private func nextCandidate() -> String? {
        let now = Date()
        return records.all.filter {
            ($0.state == .queued || $0.state == .running) && running[$0.id] == nil
                && (claimRetry[$0.id] ?? .distantPast) <= now
        }.min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }?.id
    }

    /// Claims the job's lease and, with it, runs the job as the store now has it: a queued job, or a
    /// running one whose holder is gone (interrupted: run again, or failed after three attempts).
    private func claim(_ id: String) async {
        guard let settings = replicas else { return }
        claimRetry[id] = Date().addingTimeInterval(settings.heartbeat)
        let claimed: (ClaimOutcome, JobRecord?, Bool)
        do {
            claimed = try await leaseIO { [store] in
                let outcome = try store.claim(id: id, replica: settings.replicaID, ttl: settings.leaseTTL)
                guard case .claimed = outcome else { return (outcome, nil, false) }
                return (outcome, try? store.load(id: id), store.isCancelRequested(id: id))
            }
        } catch {
            events.logger.error(
                "claiming a job failed", metadata: ["job_id": .string(id), "error": .string("\(error)")])
            return
        }
        switch claimed.0 {
        case .gone:
            records[id] = nil
            claimRetry[id] = nil
        case .held(let lease):
            // Tried again when the lease expires, or sooner if the record changes (see `remember`); at
            // least every ten heartbeats in case the change came and went between two rescans.
            claimRetry[id] = max(
                Date().addingTimeInterval(0.1), min(lease.expiresAt, Date() + 10 * settings.heartbeat))
        case .lostRace:
            break
        case .claimed(let lease):
            guard let record = claimed.1, accepting, running[id] == nil, !record.state.isTerminal else {
                if let record = claimed.1 { remember(record) }
                return await release(lease, of: id)
            }
            leases[id] = lease
            records[id] = record
            claimRetry[id] = nil
            if claimed.2 {
                try? await finish(
                    id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
                return
            }
            let recovered = Recovery.recover(record, now: Date())
            guard recovered.state == .queued else {
                records[id] = recovered
                try? await save(recovered)
                await releaseLease(id)
                return wakeAll(id)
            }
            begin(recovered)
        }
    }

    /// Runs lease file operations (claims, renewals, releases) one at a time in the order this actor asks
    /// for them (the body is queued before the actor suspends), so a release is never overtaken by a
    /// renewal asked for earlier, which would make a finished or requeued job's lease live again.
    package func leaseIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Self.leaseQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static let leaseQueue = DispatchQueue(label: "mediad.leases")

    /// Lets the job's lease go (it expires now), so another replica may claim the job at once.
    package func releaseLease(_ id: String) async {
        guard let lease = leases.removeValue(forKey: id) else { return }
        await release(lease, of: id)
    }

    private func release(_ lease: Lease, of id: String) async {
        try? await leaseIO { [store] in try store.release(lease, id: id) }
    }

    // MARK: Cancelling

    /// `DELETE` of a job this server does not run: a finished job is deleted; a queued one (or one whose
    /// holder is gone) is claimed and cancelled here; one running on another replica gets a cancel request
    /// that its holder's heartbeat acts on, and is waited for up to `timeout` seconds.
    package func cancelOrDeleteShared(_ id: String, timeout: Double) async throws -> JobRecord? {
        guard let settings = replicas, let current = await storedRecord(id) else {
            throw StoreError.notFound(id)
        }
        if current.state.isTerminal {
            records[id] = nil
            try await io { [store] in try store.delete(id: id) }
            return nil
        }
        let outcome = try await leaseIO { [store] in
            try store.claim(id: id, replica: settings.replicaID, ttl: settings.leaseTTL)
        }
        switch outcome {
        case .claimed(let lease):
            leases[id] = lease
            let loaded = try? await io { [store] in try store.load(id: id) }
            guard let fresh = loaded ?? nil, !fresh.state.isTerminal else {
                await releaseLease(id)
                return await storedRecord(id)
            }
            records[id] = fresh
            try await finish(id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
            return records[id]
        case .gone:
            records[id] = nil
            throw StoreError.notFound(id)
        case .held, .lostRace:
            try await io { [store] in try store.requestCancel(id: id) }
            running[id]?.requestStop(.cancelledByUser)
            return await wait(for: id, seconds: timeout)
        }
    }

    // MARK: Runs

    /// Appends `<replica> <attempt> <time> <event>` to the job's `runs` file.
    package func recordRun(_ record: JobRecord, _ event: String) async {
        guard let replica = replicas?.replicaID else { return }
        let line = "\(replica) \(record.attempts) \(JobJSON.rfc3339(Date())) \(event)"
        try? await io { [store] in try store.appendRun(id: record.id, line) }
    }

    /// How a run ended, for the `runs` file.
    package static func runEnd(_ outcome: Result<JobExecutor.Outcome, Error>, _ stop: RunningJob.StopReason) -> String {
        switch (outcome, stop) {
        case (_, .leaseLost): "lost"
        case (.success, _): "succeeded"
        case (.failure, .shutdown): "requeued"
        case (.failure(let error as MediaError), _) where error.code == .cancelled: "cancelled"
        case (.failure, _): "failed"
        }
    }
}
