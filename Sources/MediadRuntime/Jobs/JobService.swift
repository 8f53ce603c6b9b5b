import Foundation
import JobDatabase
import JobStore
import Logging
import MediaCore
import NIOPosix

/// The jobs of one server, as the API and the lifecycle services use them: submitting, reading, waiting
/// on, cancelling and deleting jobs, webhook bookkeeping, retention and drain.
///
/// The store's directory is the truth; this actor keeps the index in memory (`records`) and saves a record
/// on every state change through the blocking-I/O thread pool. When a queued job runs, and where records
/// of jobs this server does not run come from, is its scheduler's part: a `LocalScheduler` for a server of
/// its own, a `LeaseScheduler` when `replicas` share the store, which is then also its
/// `ReplicaCoordination` (leases, heartbeat, `runs` file). Its `RunTracker` runs the jobs the scheduler
/// starts, at most `workers` at a time, with at most `maxFetches` more fetching their URL inputs beside
/// them; progress and cancellation pass through a `RunningJob` without a hop to the actor. Scheduler,
/// coordination and run tracker run on this actor, their state guarded by it; they call back into it for
/// the index, saves (`save`, `finish`) and waiters.
package actor JobService {
    package enum Capacity {
        case available
        case full(retryAfter: Int)
        case shuttingDown
        /// The database that coordinates the replicas cannot be reached.
        case unavailable(retryAfter: Int)
        /// The bucket of `--objects` did not answer its last request.
        case storageUnavailable(retryAfter: Int)
    }

    package let store: JobStore
    let threadPool: NIOThreadPool
    private let maxQueued: Int
    /// Where the API serves an output, for the records' `url`s.
    let outputLink: OutputLink
    /// Every job's record, readable without a hop to this actor (`snapshot(_:)`).
    package nonisolated let records = JobIndex()
    /// What each owner stores and what unfinished uploads have been promised (`--quota`,
    /// `--max-pending-uploads`), readable without a hop to this actor.
    package nonisolated let ledger: StorageLedger
    package let events = JobEvents(logger: Logger(label: "mediad.jobs"))
    /// Decides which queued job runs when, and answers for the jobs that do not run here.
    let scheduler: any JobScheduler
    /// Leases, heartbeat and `runs` file when `replicas` share the store (the `LeaseScheduler`, which is
    /// also `scheduler`); nil for a server of its own.
    let coordination: (any ReplicaCoordination)?
    /// The runs under way here.
    let runs: RunTracker
    /// Whether `records` holds every job as it is (false in a shared store, where other replicas change
    /// records on disk; true with a database, whose notifications keep it current), readable without a hop
    /// to this actor.
    package nonisolated let indexIsComplete: Bool
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    private(set) var accepting = true
    private var endObserver: (@Sendable (JobRecord) -> Void)?
    /// The uploads of jobs whose input is still arriving, by job id, until each is settled.
    var arrivals: [String: InputArrival] = [:]
    /// Fetches URL inputs (`input_url`) when a run starts; nil when the server allows no egress.
    let fetcher: InputFetcher?
    /// Where submissions' `Idempotency-Key` mappings live: the database's with `database`, else the store's.
    package nonisolated let idempotencyKeys: any IdempotencyKeys
    /// The bucket job outputs go to before a job succeeds (`--objects`); nil keeps them in the store alone.
    package nonisolated let objects: JobObjects?

    /// With `replicas` set, the service shares `store` with other replicas (`LeaseScheduler`), and with
    /// `database` too, shares its jobs through that database (`DatabaseScheduler`); `fetcher`
    /// fetches URL inputs, at most `maxFetches` jobs' at once; `outputLink` is the API's download url of an
    /// output; `storage` bounds what each owner stores; `objects` is the bucket outputs go to.
    package init(
        store: JobStore, threadPool: NIOThreadPool, workers: Int, maxFetches: Int = 4, maxQueued: Int,
        isolation: IsolationSettings, storage: StorageLedger.Limits = StorageLedger.Limits(),
        replicas: ReplicaSettings? = nil, database: JobDatabase? = nil, fetcher: InputFetcher? = nil,
        objects: JobObjects? = nil, outputLink: @escaping OutputLink
    ) {
        self.fetcher = fetcher
        self.objects = objects
        self.store = store
        self.outputLink = outputLink
        self.threadPool = threadPool
        self.maxQueued = maxQueued
        ledger = StorageLedger(limits: storage, jobs: records, watermark: store.watermark)
        runs = RunTracker(
            RunDispatcher(store: store, isolation: isolation, ledger: ledger), workers: workers, fetchers: maxFetches)
        if let replicas, let database {
            let scheduler = DatabaseScheduler(replicas, database: database)
            self.scheduler = scheduler
            coordination = scheduler
            idempotencyKeys = DatabaseIdempotencyKeys(database: database)
        } else if let replicas {
            let leases = LeaseScheduler(replicas, store: store)
            scheduler = leases
            coordination = leases
            idempotencyKeys = StoreIdempotencyKeys(store: store, threadPool: threadPool)
        } else {
            scheduler = LocalScheduler()
            coordination = nil
            idempotencyKeys = StoreIdempotencyKeys(store: store, threadPool: threadPool)
        }
        indexIsComplete = coordination?.keepsIndexCurrent ?? true
    }

    /// Loads every job from the store, recovers interrupted ones, and starts running jobs.
    package func start() async throws {
        try await scheduler.start(self)
    }

    /// A shared store's heartbeat until the calling task is cancelled; a server of its own has no periodic
    /// work and just waits, as `JobLifecycle` expects.
    package func beat() async {
        guard let coordination else {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        await coordination.beat(self)
    }

    /// Every record the store holds, with those it could not read logged and skipped; crash leftovers
    /// younger than `age` are spared.
    func loadStore(keepingLeftoversYoungerThan age: TimeInterval = 0) async throws -> [JobRecord] {
        let scan = try await io { [store] in try store.loadAll(keepingLeftoversYoungerThan: age) }
        for unreadable in scan.unreadable {
            events.logger.error(
                "job is unreadable and was skipped",
                metadata: ["job_id": .string(unreadable.id), "error": .string("\(unreadable.error)")])
        }
        return scan.records
    }

    // MARK: Submitting

    package func capacity() -> Capacity {
        guard accepting else { return .shuttingDown }
        if let coordination, !coordination.isReachable { return .unavailable(retryAfter: 5) }
        if let objects, !objects.isReachable { return .storageUnavailable(retryAfter: 5) }
        return scheduler.queuedCount(self) >= maxQueued ? .full(retryAfter: 5) : .available
    }

    /// Adds a job whose directory the store has created. On a shared store, a rescan may have found that
    /// directory before this call and a claim pass may already run the job here: the index's record is
    /// then the newer one (one more attempt, this replica's), and replacing it would have the run's end
    /// saved over a record that never started. With replicas, the job is published first; a job that cannot
    /// be is removed from the store, and the error (`store_unavailable`) is the caller's.
    package func enqueue(_ record: JobRecord) async throws {
        do {
            try await publish(record)
        } catch {
            await discard(record.id, after: error)
            throw error
        }
        queue(record)
    }

    /// `enqueue` of a job submitted with an `Idempotency-Key` (its `digest`; what the request asked for,
    /// `entry`): the key is claimed for the job and the job queued, or, when a live entry holds the key
    /// already, the job is removed from the store and that entry returned. A claim that fails removes the
    /// job too (`store_unavailable` when the replicas' database cannot be used).
    package func enqueue(
        _ record: JobRecord, claiming digest: String, as entry: IdempotencyEntry, lifetime: TimeInterval
    ) async throws -> IdempotencyEntry? {
        let claim: JobStore.IdempotencyClaim
        do {
            claim = try await idempotencyKeys.claim(digest, entry, job: record, lifetime: lifetime) {
                try await self.publish(record)
            }
        } catch {
            await discard(record.id, after: error)
            throw error
        }
        if case .taken(let existing) = claim {
            await discard(record.id)
            return existing
        }
        queue(record)
        return nil
    }

    /// Makes a new job known to the other replicas (nothing to do for a server of its own).
    private func publish(_ record: JobRecord) async throws {
        try await coordination?.publish(record, self)
    }

    /// Takes a published job into the index and the queue.
    private func queue(_ record: JobRecord) {
        if records[record.id] == nil { records[record.id] = record }
        events.changed(record, from: nil)
        scheduler.enqueue(record.id, self)
    }

    /// Removes from the store a job that will not be queued.
    private func discard(_ id: String) async {
        try? await io { [store] in try store.delete(id: id) }
    }

    /// Removes a job whose publication failed with `error`, unless the replicas' database may have taken
    /// it all the same (its answer never came): then the job's files stay, for a replica to run it if the
    /// database has it, and the database scheduler's sweep of directories no job names removes them if not.
    private func discard(_ id: String, after error: any Error) async {
        guard (error as? StoreError)?.mayHaveTakenEffect == true else { return await discard(id) }
        events.logger.warning(
            "kept the files of a job the database may have taken before it stopped answering",
            metadata: ["job_id": .string(id)])
    }

    // MARK: Reading

    /// The record with its live progress (in shared-store mode, read from disk unless it runs here).
    package func record(_ id: String) async -> JobRecord? {
        await scheduler.record(id, self)
    }

    /// The record as the index has it, with live progress.
    func localRecord(_ id: String) -> JobRecord? {
        records.current(id)
    }

    /// The record with its live progress, read without a hop to this actor; nil when only the actor can
    /// tell (a shared store, where another replica may have changed the record on disk) or the job is unknown.
    package nonisolated func snapshot(_ id: String) -> JobRecord? {
        indexIsComplete ? records.current(id) : nil
    }

    package func allRecords() async -> [JobRecord] {
        await coordination?.refresh(self)
        return records.allCurrent
    }

    /// Jobs waiting to run and jobs running now (in a shared store, the queued jobs of every replica).
    package func load() async -> (queued: Int, running: Int) {
        (await scheduler.reportedQueueDepth(self), running.count)
    }

    /// Waits until the job ends or `seconds` pass; returns the record then. In shared-store mode the
    /// record is read again every `ReplicaSettings.pollInterval`, since another replica may be running it.
    package func wait(for id: String, seconds: Double) async -> JobRecord? {
        await scheduler.wait(for: id, seconds: seconds, self)
    }

    /// Suspends until the job ends here (`wakeAll`), `seconds` pass, or the calling task is cancelled (a
    /// connection closed at shutdown): the timer and the wait are child tasks, cancelled with it.
    func park(_ id: String, seconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
            group.addTask { await self.waitForEnd(id) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until `wakeAll(id)` or cancellation.
    private func waitForEnd(_ id: String) async {
        let token = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                guard !Task.isCancelled else { return continuation.resume() }
                waiters[id, default: [:]][token] = continuation
            }
        } onCancel: {
            Task { await self.wake(id, token: token) }
        }
    }

    private func wake(_ id: String, token: UUID) {
        waiters[id]?.removeValue(forKey: token)?.resume()
    }

    func wakeAll(_ id: String) {
        for continuation in waiters.removeValue(forKey: id)?.values ?? [:].values { continuation.resume() }
    }

    // MARK: Cancelling and deleting

    /// Cancels a queued or running job (waiting up to `timeout` for a running one to stop), or deletes a
    /// finished one. Returns the cancelled record, or nil when the job was deleted.
    ///
    /// A stop is a kill and always ends, but on a loaded machine (or with the holder another replica that
    /// acts on its next heartbeat) it can take seconds: the answer waits for it rather than show a job
    /// still `running` that the API says is cancelled.
    package func cancelOrDelete(_ id: String, timeout: Double = 60) async throws -> JobRecord? {
        try await scheduler.cancelOrDelete(id, timeout: timeout, self)
    }

    /// `cancelOrDelete` of a job as the index has it, the scheduler having let go of it if queued.
    func cancelOrDeleteIndexed(_ id: String, timeout: Double) async throws -> JobRecord? {
        guard let current = records[id] else { throw StoreError.notFound(id) }
        if current.state.isTerminal {
            records[id] = nil
            try await io { [store] in try store.delete(id: id) }
            await removeObjects(of: [id])
            return nil
        }
        if current.state == .queued {
            try await cancel(id)
            return records[id]
        }
        if let run = running[id] {
            run.requestStop(.cancelledByUser)
            try? await io { [store] in
                let log = JobLog(path: store.logPath(id: id))
                log.write("cancel requested")
                log.close()
            }
        }
        // A run waiting for its input's upload to end does not wait any more.
        arrivals.removeValue(forKey: id)?.settle(JobError(code: "cancelled", message: "cancelled by request"))
        return await wait(for: id, seconds: timeout)
    }

    /// Ends the job as `cancelled` by request.
    func cancel(_ id: String) async throws {
        try await finish(id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
    }

    // MARK: Running

    /// Starts queued jobs while a worker or fetch slot is free for them.
    func startNext() {
        scheduler.startNext(self)
    }

    /// Ends the job in `state`: saves the record, lets go of its lease (in a shared store), wakes its waiters and
    /// tells the webhooks.
    func finish(_ id: String, state: JobState, error: JobError?) async throws {
        guard var record = records[id] else { return }
        let stored = record
        let previous = record.state
        record.state = state
        record.error = error
        record.finishedAt = Date()
        if state == .succeeded { record.progress = 1 }
        records[id] = record
        events.changed(record, from: previous)
        await storeLog(id, attempt: record.attempts)
        do {
            try await save(record)
        } catch {
            // An end that was not saved is not the job's: readers go on seeing it as stored, not an end it
            // may never have (with `--database` another attempt runs once the lease expires; found by
            // DatabaseClusterTests, whose replica answered `succeeded` for a job that then ran again).
            records[id] = stored
            throw error
        }
        await coordination?.release(id, self)
        wakeAll(id)
        endObserver?(record)
    }

    /// With `--objects`, puts the log of a job that ends here into the bucket before its end is saved, so
    /// any replica answers `GET /jobs/{id}/log` once the job has ended, keyed by the attempt its record
    /// ends with (`JobObjects`). A store that fails is logged; the log then stays on this replica alone.
    private func storeLog(_ id: String, attempt: Int) async {
        guard let objects else { return }
        let path = store.logPath(id: id)
        guard (try? await io({ FileManager.default.fileExists(atPath: path) })) == true else { return }
        do {
            try await objects.storeLog(job: id, attempt: attempt, from: path)
        } catch {
            events.logger.warning(
                "storing a job's log in the bucket failed",
                metadata: ["job_id": .string(id), "error": .string("\(error)")])
        }
    }

    // MARK: Webhooks

    /// Calls `observer` with each job that ends, once its record is saved (webhook deliveries).
    package func onJobEnd(_ observer: @escaping @Sendable (JobRecord) -> Void) { endObserver = observer }

    /// The ended jobs whose deliveries this server resumes at start: all of them for a single server; in a
    /// shared store only those whose last run was this replica's, with `--database` those whose delivery
    /// lease it holds, so that one replica delivers each job and is the only writer of its record's
    /// `notifications`.
    package func endedJobsToNotify() async -> [JobRecord] {
        await allRecords().filter { $0.state.isTerminal && scheduler.resumesDeliveries(of: $0) }
    }

    /// Hands an ended job whose deliveries this replica took over (with `--database`) to the deliverer, as
    /// if it had just ended here.
    func resumeDeliveries(of record: JobRecord) {
        endObserver?(record)
    }

    // MARK: Retention and shutdown

    /// Removes the objects of the deleted jobs `ids` from the bucket (`--objects`; nothing to do without
    /// it). A store that fails is logged with each job left; its objects hold no record any more, and the
    /// bucket's own expiry rules are the backstop (docs/operations.md, Object storage).
    func removeObjects(of ids: [String]) async {
        guard let objects else { return }
        for id in ids {
            do {
                try await objects.removeJob(id)
            } catch {
                events.logger.error(
                    "removing a deleted job's objects failed",
                    metadata: ["job_id": .string(id), "error": .string("\(error)")])
            }
        }
    }

    /// Deletes finished jobs older than `retention` (in shared-store mode, only those no replica holds; with
    /// a database, on one replica at a time) and idempotency keys older than `idempotencyLifetime`.
    package func sweep(retention: TimeInterval, idempotencyLifetime: TimeInterval) async {
        await scheduler.deleteExpired(olderThan: retention, self)
        _ = try? await idempotencyKeys.sweep(lifetime: idempotencyLifetime)
    }

    /// Stops starting jobs, lets running ones finish for up to `grace` seconds, then fails those whose input
    /// still arrives, stops the rest and puts them back in the queue for the next start.
    package func drain(grace: TimeInterval) async {
        accepting = false
        let deadline = Date().addingTimeInterval(grace)
        while !running.isEmpty && Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        // A job whose input still arrives could not run again on what was kept of it.
        for id in arrivals.keys {
            await inputFailed(
                id, JobError(code: "shutting_down", message: "the server shut down while the input arrived"))
        }
        for run in running.values where run.stopReason == .none { run.requestStop(.shutdown) }
        while !running.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
    }

    package var isAccepting: Bool { accepting }

    /// Whether the store that coordinates the replicas answers (always, for a server of its own).
    package var isReachable: Bool { coordination?.isReachable ?? true }

    /// The runs under way here, by job id, fetching their inputs or working.
    var running: [String: RunningJob] { runs.running }

    // MARK: Storage

    /// Saves a record: in the store, or where the replicas coordinate (for a job that runs here, only while
    /// this server holds it).
    func save(_ record: JobRecord) async throws {
        if let coordination { return try await coordination.save(record, self) }
        try await io { [store] in try store.save(record) }
    }

    /// Runs `body`, blocking file work, on the blocking-I/O thread pool.
    func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }
}
