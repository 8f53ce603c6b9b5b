import Foundation
import JobStore
import Logging
import MediaCore
import MediaJobs
import NIOPosix

/// The jobs of one server: their records, the queue, the worker slots, and the clients waiting on them.
///
/// The store's directory is the truth; this actor keeps the index in memory, rebuilt from the store at
/// start (with interrupted runs requeued or, after three attempts, failed). Records are saved on every
/// state change through the blocking-I/O thread pool. Jobs run at most `workers` at a time, each in a
/// supervised worker process (or, with isolation `none`, in this process), each on a thread of its own; progress and
/// cancellation pass through a `RunningJob` without a hop to the actor.
///
/// With `replicas` set (shared-store mode), several servers share the store: see `JobService+Replicas`.
/// Each run then holds the job's lease, and every record this server does not run is read from disk.
package actor JobService {
    package enum Capacity {
        case available
        case full(retryAfter: Int)
        case shuttingDown
    }

    package let store: JobStore
    private let threadPool: NIOThreadPool
    package let workers: Int
    private let maxQueued: Int
    private let isolation: IsolationSettings
    package let replicas: ReplicaSettings?
    /// Every job's record, readable without a hop to this actor (`snapshot(_:)`).
    package let records = JobIndex()
    private var queue: [String] = []
    package var running: [String: RunningJob] = [:]
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    package var accepting = true
    private var endObserver: (@Sendable (JobRecord) -> Void)?
    package let events = JobEvents(logger: Logger(label: "mediad.jobs"))
    /// Shared-store mode: the leases of the jobs this server runs.
    package var leases: [String: Lease] = [:]
    /// Shared-store mode: when a job that could not be claimed is worth trying again.
    package var claimRetry: [String: Date] = [:]
    /// Shared-store mode: a claim pass is under way / another was asked for meanwhile.
    package var claiming = false
    package var claimAgain = false
    /// Shared-store mode: when the index was last refreshed from the store.
    package var lastRescan = Date.distantPast

    package init(
        store: JobStore, threadPool: NIOThreadPool, workers: Int, maxQueued: Int, isolation: IsolationSettings,
        replicas: ReplicaSettings? = nil
    ) {
        self.store = store
        self.isolation = isolation
        self.threadPool = threadPool
        self.workers = max(1, workers)
        self.maxQueued = maxQueued
        self.replicas = replicas
    }

    /// Loads every job from the store, recovers interrupted ones, and starts the queue.
    package func start() async throws {
        if let replicas { return try await startShared(replicas) }
        let scan = try await io { [store] in try store.loadAll() }
        for unreadable in scan.unreadable {
            events.logger.error(
                "job is unreadable and was skipped",
                metadata: ["job_id": .string(unreadable.id), "error": .string("\(unreadable.error)")])
        }
        let loaded = scan.records
        let now = Date()
        for record in loaded.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let recovered = Recovery.recover(record, now: now)
            if recovered != record { try await save(recovered) }
            if recovered.state != record.state { events.changed(recovered, from: record.state) }
            records[record.id] = recovered
            if recovered.state == .queued { queue.append(record.id) }
        }
        startNext()
    }

    // MARK: Submitting

    package func capacity() -> Capacity {
        guard accepting else { return .shuttingDown }
        let queued = replicas == nil ? queue.count : records.count { $0.state == .queued }
        return queued >= maxQueued ? .full(retryAfter: 5) : .available
    }

    /// Adds a job whose directory the store has created.
    package func enqueue(_ record: JobRecord) {
        records[record.id] = record
        // A shared store has no local queue: claim passes pick queued jobs from the index.
        if replicas == nil { queue.append(record.id) }
        events.changed(record, from: nil)
        startNext()
    }

    // MARK: Reading

    /// The record with its live progress (in shared-store mode, read from disk unless it runs here).
    package func record(_ id: String) async -> JobRecord? {
        if replicas != nil, running[id] == nil { return await storedRecord(id) }
        return localRecord(id)
    }

    package func localRecord(_ id: String) -> JobRecord? {
        records.current(id)
    }

    /// The record with its live progress, read without a hop to this actor; nil when only the actor can
    /// tell (a shared store, where another replica may have changed the record on disk) or the job is unknown.
    package nonisolated func snapshot(_ id: String) -> JobRecord? {
        replicas == nil ? records.current(id) : nil
    }

    package func allRecords() async -> [JobRecord] {
        if let replicas, Date().timeIntervalSince(lastRescan) > min(1, replicas.heartbeat) { await rescan() }
        return records.allCurrent
    }

    /// Jobs waiting to run and jobs running now (in a shared store, the queued jobs of every replica).
    package func load() -> (queued: Int, running: Int) {
        let queued = replicas == nil ? queue.count : records.count { $0.state == .queued }
        return (queued, running.count)
    }

    /// Waits until the job ends or `seconds` pass; returns the record then. In shared-store mode the
    /// record is read again every `ReplicaSettings.pollInterval`, since another replica may be running it.
    package func wait(for id: String, seconds: Double) async -> JobRecord? {
        guard replicas != nil else {
            guard let current = records[id] else { return nil }
            guard !current.state.isTerminal, seconds > 0 else { return localRecord(id) }
            await park(id, seconds: seconds)
            return localRecord(id)
        }
        let deadline = Date().addingTimeInterval(seconds)
        var current = await record(id)
        while let record = current, !record.state.isTerminal, Date() < deadline {
            await park(id, seconds: min(ReplicaSettings.pollInterval, deadline.timeIntervalSinceNow))
            current = await self.record(id)
        }
        return current
    }

    /// Suspends until the job ends here (`wakeAll`), `seconds` pass, or the calling task is cancelled (a
    /// connection closed at shutdown): the timer and the wait are child tasks, cancelled with it.
    private func park(_ id: String, seconds: Double) async {
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

    package func wakeAll(_ id: String) {
        for continuation in waiters.removeValue(forKey: id)?.values ?? [:].values { continuation.resume() }
    }

    // MARK: Cancelling and deleting

    /// Cancels a queued or running job (waiting up to `timeout` for a running one to stop), or deletes a
    /// finished one. Returns the cancelled record, or nil when the job was deleted.
    package func cancelOrDelete(_ id: String, timeout: Double = 5) async throws -> JobRecord? {
        if replicas != nil, running[id] == nil { return try await cancelOrDeleteShared(id, timeout: timeout) }
        guard let current = records[id] else { throw StoreError.notFound(id) }
        if current.state.isTerminal {
            records[id] = nil
            try await io { [store] in try store.delete(id: id) }
            return nil
        }
        if current.state == .queued {
            queue.removeAll { $0 == id }
            try await finish(id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
            return records[id]
        }
        running[id]?.requestStop(.cancelledByUser)
        return await wait(for: id, seconds: timeout)
    }

    // MARK: Running

    package func startNext() {
        if replicas != nil { return claimJobs() }
        while accepting, running.count < workers, !queue.isEmpty {
            let id = queue.removeFirst()
            guard let record = records[id], record.state == .queued else { continue }
            begin(record)
        }
    }

    /// Starts a run of a queued job: one more attempt, saved as `running` before the run can end.
    package func begin(_ queued: JobRecord) {
        var record = queued
        record.state = .running
        record.startedAt = Date()
        record.attempts += 1
        record.progress = 0
        record.replica = replicas?.replicaID
        records[record.id] = record
        events.changed(record, from: .queued)
        let run = RunningJob()
        running[record.id] = run
        records.runStarted(record.id, run)
        let started = record
        // The record says `running` on disk before the run can end and say anything else; a shared store's
        // `runs` file has the start before that, so every attempt a record counts has its line.
        Task {
            await self.recordRun(started, "start")
            try? await self.save(started)
            self.launch(started, run)
        }
    }

    /// Runs the job on a thread of its own — a worker to supervise, or the job itself with `--isolation
    /// none` — so that neither the actor nor a shared pool waits on it; at most `workers` run at once.
    private func launch(_ record: JobRecord, _ run: RunningJob) {
        let store = store
        let isolation = isolation
        Task {
            let outcome: Result<JobExecutor.Outcome, Error>
            do {
                outcome = try await DedicatedThread.run(name: "mediad-job") {
                    Self.execute(record, run, store: store, isolation: isolation)
                }
            } catch {
                outcome = .failure(error)
            }
            await self.completed(record.id, outcome, stop: run.stopReason)
        }
    }

    /// Runs the job to its end and writes how it ended to its log.
    private static func execute(_ record: JobRecord, _ run: RunningJob, store: JobStore, isolation: IsolationSettings)
        -> Result<JobExecutor.Outcome, Error>
    {
        let outcome =
            switch isolation.mode {
            case .process: WorkerSupervisor(store: store, settings: isolation).run(record, run)
            case .none: runInProcess(record, run, store: store)
            }
        let log = JobLog(path: store.logPath(id: record.id))
        switch outcome {
        case .success(let done):
            for warning in done.warnings { log.write("warning: \(warning)") }
            log.write("succeeded")
        case .failure(let error as MediaError) where error.code == .cancelled:
            log.write("cancelled")
        case .failure(let error):
            log.write("failed: \(error)")
        }
        log.close()
        return outcome
    }

    /// Runs the job on the calling thread, with libav's lines from this thread in the job's log.
    private static func runInProcess(_ record: JobRecord, _ run: RunningJob, store: JobStore) -> Result<
        JobExecutor.Outcome, Error
    > {
        let log = JobLog(path: store.logPath(id: record.id))
        defer { log.close() }
        log.write("attempt \(record.attempts): \(record.kind.rawValue) started")
        let space = OutputSpaceGuard(store.watermark)
        let context = JobContext(
            reportProgress: { run.progress = $0 }, isCancelled: { run.stopReason != .none },
            checkResources: { try space.check() })
        return log.capturing { Result { try JobExecutor(store: store).run(record, context: context) } }
    }

    private func completed(_ id: String, _ outcome: Result<JobExecutor.Outcome, Error>, stop: RunningJob.StopReason)
        async
    {
        if let record = records[id] { await recordRun(record, "end " + Self.runEnd(outcome, stop)) }
        // The job counts as running until its end is recorded, so a drain waits for that before exiting.
        defer {
            running[id] = nil
            records.runEnded(id)
            startNext()
        }
        do {
            switch (outcome, stop) {
            case (_, .leaseLost):
                leases[id] = nil
                running[id] = nil
                records.runEnded(id)
                records[id] = await storedRecord(id)
                wakeAll(id)
            case (.success(let done), _):
                guard records[id] != nil else { return }
                records[id]?.outputs = done.listedOutputs(ofJob: id)
                records[id]?.warnings = done.warnings
                records[id]?.result = done.result
                try await finish(id, state: .succeeded, error: nil)
            case (.failure, .shutdown):
                guard var record = records[id] else { return }
                record.state = .queued
                record.progress = 0
                record.startedAt = nil
                records[id] = record
                events.changed(record, from: .running)
                try await save(record)
                if replicas != nil { return await releaseLease(id) }
                queue.insert(id, at: 0)
            case (.failure(let error as MediaError), _) where error.code == .cancelled:
                // A cancelled job keeps the progress it had made (the stored record has none while it runs).
                if let run = running[id] { records[id]?.progress = run.progress }
                try await finish(
                    id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
            case (.failure(let error as MediaError), _):
                try await finish(id, state: .failed, error: JobError(code: error.code.rawValue, message: error.message))
            case (.failure(let error), _):
                try await finish(id, state: .failed, error: JobError(code: "internal_error", message: "\(error)"))
            }
        } catch {
            events.logger.error(
                "recording the end of a job failed", metadata: ["job_id": .string(id), "error": .string("\(error)")])
            // Shared store: the lease is left to expire, and another replica runs the job again.
            leases[id] = nil
        }
    }

    package func finish(_ id: String, state: JobState, error: JobError?) async throws {
        guard var record = records[id] else { return }
        let previous = record.state
        record.state = state
        record.error = error
        record.finishedAt = Date()
        if state == .succeeded { record.progress = 1 }
        records[id] = record
        events.changed(record, from: previous)
        try await save(record)
        await releaseLease(id)
        wakeAll(id)
        endObserver?(record)
    }

    // MARK: Webhooks

    /// Calls `observer` with each job that ends, once its record is saved (webhook deliveries).
    package func onJobEnd(_ observer: @escaping @Sendable (JobRecord) -> Void) { endObserver = observer }

    /// The ended jobs whose deliveries this server resumes at start: all of them for a single server; in a
    /// shared store only those whose last run was this replica's, so that one replica delivers each job and
    /// is the only writer of its record's `notifications`.
    package func endedJobsToNotify() async -> [JobRecord] {
        await allRecords().filter { $0.state.isTerminal && (replicas == nil || $0.replica == replicas?.replicaID) }
    }

    /// Appends a webhook delivery attempt to the job's record and saves it; false when the job is gone.
    package func recordNotification(_ id: String, _ attempt: NotificationAttempt) async -> Bool {
        guard var record = records[id] else { return false }
        record.notifications = (record.notifications ?? []) + [attempt]
        records[id] = record
        do {
            try await save(record)
            return true
        } catch {
            return false
        }
    }

    // MARK: Retention and shutdown

    /// Deletes finished jobs older than `retention` (in shared-store mode, only those no replica holds).
    package func sweep(retention: TimeInterval) async {
        for id in Retention.expired(records.all, olderThan: retention, now: Date()) {
            records[id] = nil
            try? await io { [store, replicas] in
                if replicas != nil, (try? store.currentLease(id: id))?.isLive(at: Date()) == true { return }
                try store.delete(id: id)
            }
        }
    }

    /// Stops starting jobs, lets running ones finish for up to `grace` seconds, then stops the rest and
    /// puts them back in the queue for the next start.
    package func drain(grace: TimeInterval) async {
        accepting = false
        let deadline = Date().addingTimeInterval(grace)
        while !running.isEmpty && Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        for run in running.values { run.requestStop(.shutdown) }
        while !running.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
    }

    package var isAccepting: Bool { accepting }

    // MARK: Storage

    /// Saves a record; in shared-store mode, only while this server holds the job's lease (if it has one).
    package func save(_ record: JobRecord) async throws {
        let lease = leases[record.id]
        try await io { [store] in
            if let lease, !store.holds(lease, id: record.id) { throw StoreError.leaseLost(record.id) }
            try store.save(record)
        }
    }

    package func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }
}
