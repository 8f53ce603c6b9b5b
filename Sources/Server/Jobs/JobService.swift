import Dispatch
import Foundation
import JobStore
import MediaCore
import MediaJobs
import NIOPosix

/// The jobs of one server: their records, the queue, the worker slots, and the clients waiting on them.
///
/// The store's directory is the truth; this actor keeps the index in memory, rebuilt from the store at
/// start (with interrupted runs requeued or, after three attempts, failed). Records are saved on every
/// state change through the blocking-I/O thread pool. Jobs run at most `workers` at a time, each in a
/// supervised worker process (or, with isolation `none`, on a Dispatch worker thread); progress and
/// cancellation pass through a `RunningJob` without a hop to the actor.
actor JobService {
    enum Capacity {
        case available
        case full(retryAfter: Int)
        case shuttingDown
    }

    let store: JobStore
    private let threadPool: NIOThreadPool
    private let workers: Int
    private let maxQueued: Int
    private let isolation: IsolationSettings
    private var records: [String: JobRecord] = [:]
    private var queue: [String] = []
    private var running: [String: RunningJob] = [:]
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    private var accepting = true
    private var endObserver: (@Sendable (JobRecord) -> Void)?
    private let workQueue = DispatchQueue(label: "mediad.jobs", qos: .userInitiated, attributes: .concurrent)

    init(store: JobStore, threadPool: NIOThreadPool, workers: Int, maxQueued: Int, isolation: IsolationSettings) {
        self.store = store
        self.isolation = isolation
        self.threadPool = threadPool
        self.workers = max(1, workers)
        self.maxQueued = maxQueued
    }

    /// Loads every job from the store, recovers interrupted ones, and starts the queue.
    func start() async throws {
        let scan = try await io { [store] in try store.loadAll() }
        for unreadable in scan.unreadable {
            FileHandle.standardError.write(
                Data("mediad: job \(unreadable.id) is unreadable and was skipped: \(unreadable.error)\n".utf8))
        }
        let loaded = scan.records
        let now = Date()
        for record in loaded.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let recovered = Recovery.recover(record, now: now)
            if recovered != record { try await save(recovered) }
            records[record.id] = recovered
            if recovered.state == .queued { queue.append(record.id) }
        }
        startNext()
    }

    // MARK: Submitting

    func capacity() -> Capacity {
        guard accepting else { return .shuttingDown }
        return queue.count >= maxQueued ? .full(retryAfter: 5) : .available
    }

    /// Adds a job whose directory the store has created.
    func enqueue(_ record: JobRecord) {
        records[record.id] = record
        queue.append(record.id)
        startNext()
    }

    // MARK: Reading

    /// The record with its live progress.
    func record(_ id: String) -> JobRecord? {
        guard var record = records[id] else { return nil }
        if let run = running[id] { record.progress = run.progress }
        return record
    }

    func allRecords() -> [JobRecord] { records.keys.compactMap(record) }

    /// Waits until the job ends or `seconds` pass; returns the record then.
    func wait(for id: String, seconds: Double) async -> JobRecord? {
        guard let current = records[id] else { return nil }
        guard !current.state.isTerminal, seconds > 0 else { return record(id) }
        let token = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiters[id, default: [:]][token] = continuation
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                self.wake(id, token: token)
            }
        }
        return record(id)
    }

    private func wake(_ id: String, token: UUID) {
        waiters[id]?.removeValue(forKey: token)?.resume()
    }

    private func wakeAll(_ id: String) {
        for continuation in waiters.removeValue(forKey: id)?.values ?? [:].values { continuation.resume() }
    }

    // MARK: Cancelling and deleting

    /// Cancels a queued or running job (waiting up to `timeout` for a running one to stop), or deletes a
    /// finished one. Returns the cancelled record, or nil when the job was deleted.
    func cancelOrDelete(_ id: String, timeout: Double = 5) async throws -> JobRecord? {
        guard let current = records[id] else { throw ServiceError.notFound("no job \(id)") }
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

    private func startNext() {
        while accepting, running.count < workers, !queue.isEmpty {
            let id = queue.removeFirst()
            guard var record = records[id], record.state == .queued else { continue }
            record.state = .running
            record.startedAt = Date()
            record.attempts += 1
            record.progress = 0
            records[id] = record
            let run = RunningJob()
            running[id] = run
            let started = record
            // The record says `running` on disk before the run can end and say anything else.
            Task {
                try? await self.save(started)
                self.launch(started, run)
            }
        }
    }

    private func launch(_ record: JobRecord, _ run: RunningJob) {
        let store = store
        let isolation = isolation
        workQueue.async {
            let outcome =
                switch isolation.mode {
                case .process: WorkerSupervisor(store: store, settings: isolation).run(record, run)
                case .none: Self.runInProcess(record, run, store: store)
                }
            let log = JobLog(path: store.logPath(id: record.id))
            switch outcome {
            case .success(let done):
                for warning in done.warnings { log.write("warning: \(warning)") }
                log.write("succeeded")
            case .failure(let error):
                log.write("failed: \(error)")
            }
            log.close()
            Task { await self.completed(record.id, outcome, stop: run.stopReason) }
        }
    }

    /// Runs the job on the calling thread, with libav's lines from this thread in the job's log.
    private static func runInProcess(_ record: JobRecord, _ run: RunningJob, store: JobStore) -> Result<
        JobExecutor.Outcome, Error
    > {
        let log = JobLog(path: store.logPath(id: record.id))
        defer { log.close() }
        log.write("attempt \(record.attempts): \(record.kind.rawValue) started")
        let context = JobContext(reportProgress: { run.progress = $0 }, isCancelled: { run.stopReason != .none })
        return log.capturing { Result { try JobExecutor(store: store).run(record, context: context) } }
    }

    private func completed(_ id: String, _ outcome: Result<JobExecutor.Outcome, Error>, stop: RunningJob.StopReason)
        async
    {
        running[id] = nil
        defer { startNext() }
        do {
            switch (outcome, stop) {
            case (.success(let done), _):
                guard let record = records[id] else { return }
                let outputs = try await io { [store] in
                    try store.describeOutputs(id: id, contentType: JobSpec.contentType(ofOutput:))
                }
                let primary = (try? JobSpec.primaryOutput(for: record.kind, options: record.options)) ?? ""
                records[id]?.outputs = outputs.filter { $0.name == primary } + outputs.filter { $0.name != primary }
                records[id]?.warnings = done.warnings
                records[id]?.result = done.result
                try await finish(id, state: .succeeded, error: nil)
            case (.failure, .shutdown):
                guard var record = records[id] else { return }
                record.state = .queued
                record.progress = 0
                record.startedAt = nil
                records[id] = record
                try await save(record)
                queue.insert(id, at: 0)
            case (.failure(let error as MediaError), _) where error.code == .cancelled:
                try await finish(
                    id, state: .cancelled, error: JobError(code: "cancelled", message: "cancelled by request"))
            case (.failure(let error as MediaError), _):
                try await finish(id, state: .failed, error: JobError(code: error.code.rawValue, message: error.message))
            case (.failure(let error), _):
                try await finish(id, state: .failed, error: JobError(code: "internal_error", message: "\(error)"))
            }
        } catch {
            FileHandle.standardError.write(Data("mediad: recording the end of job \(id) failed: \(error)\n".utf8))
        }
    }

    private func finish(_ id: String, state: JobState, error: JobError?) async throws {
        guard var record = records[id] else { return }
        record.state = state
        record.error = error
        record.finishedAt = Date()
        if state == .succeeded { record.progress = 1 }
        records[id] = record
        try await save(record)
        wakeAll(id)
        endObserver?(record)
    }

    // MARK: Webhooks

    /// Calls `observer` with each job that ends, once its record is saved (webhook deliveries).
    func onJobEnd(_ observer: @escaping @Sendable (JobRecord) -> Void) { endObserver = observer }

    /// Appends a webhook delivery attempt to the job's record and saves it; false when the job is gone.
    func recordNotification(_ id: String, _ attempt: NotificationAttempt) async -> Bool {
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

    /// Deletes finished jobs older than `retention`.
    func sweep(retention: TimeInterval) async {
        for id in Retention.expired(Array(records.values), olderThan: retention, now: Date()) {
            records[id] = nil
            try? await io { [store] in try store.delete(id: id) }
        }
    }

    /// Stops starting jobs, lets running ones finish for up to `grace` seconds, then stops the rest and
    /// puts them back in the queue for the next start.
    func drain(grace: TimeInterval) async {
        accepting = false
        let deadline = Date().addingTimeInterval(grace)
        while !running.isEmpty && Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        for run in running.values { run.requestStop(.shutdown) }
        while !running.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
    }

    var isAccepting: Bool { accepting }

    // MARK: Storage

    private func save(_ record: JobRecord) async throws {
        try await io { [store] in try store.save(record) }
    }

    private func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }
}
