import Foundation
import JobStore
import Logging
import MediaCore

/// Keeps the runs under way on this server: starts a queued job's run when its scheduler says so, holds
/// its place (`RunSlots`: a worker, or a fetch slot first for a job with URL inputs), stages its inputs
/// from the bucket when they are not here (`--objects`), and records how it ended. The server's
/// counterpart of the CLI's `JobRunner`.
///
/// Who calls whom: a `JobScheduler` calls `begin`; the run then saves the record through `JobService`,
/// fetches the job's URL inputs (`JobService.fetchInputs`), hands the job to the `RunDispatcher`, off the
/// actor, and takes its end back as a `RunEnd`, saved with `JobService.finish` (or given back to the
/// scheduler with `requeue`). In a shared store it tells the `ReplicaCoordination` of the run's start and
/// end. Belongs to one `JobService` and runs on its actor: each method takes the service as an `isolated`
/// parameter.
final class RunTracker {
    private let dispatcher: RunDispatcher
    /// The runs under way, by job id, fetching or working; a job counts as running until its end is
    /// recorded, so a drain waits for that before the process exits.
    private(set) var running: [String: RunningJob] = [:]
    /// The workers and fetch slots the runs hold.
    private var slots: RunSlots

    init(_ dispatcher: RunDispatcher, workers: Int, fetchers: Int) {
        self.dispatcher = dispatcher
        slots = RunSlots(workers: workers, fetchers: fetchers)
    }

    /// Whether a run of `record`, a queued job, could start now.
    func hasRoom(for record: JobRecord) -> Bool { slots.hasRoom(for: record) }
    /// Whether no run of any job could start now.
    var isFull: Bool { slots.isFull }
    /// Whether a run of any queued job could start now, whichever room it needs.
    var hasRoomForAnyJob: Bool { slots.hasRoomForAnyJob }
    /// Every place a run may hold (workers and fetch slots).
    var capacity: Int { slots.capacity }

    /// Starts a run of a queued job for which `hasRoom(for:)`: one more attempt, saved as `running` before
    /// the run can end. A job whose input still arrives takes its end only once the upload ended.
    func begin(_ queued: JobRecord, _ jobs: isolated JobService) {
        slots.take(for: queued)
        var record = queued
        record.state = .running
        record.startedAt = Date()
        record.attempts += 1
        record.progress = 0
        record.replica = jobs.coordination?.replicaID
        record.markUnfetchedSources(.fetching)
        jobs.records[record.id] = record
        jobs.events.changed(record, from: .queued)
        let run = RunningJob()
        running[record.id] = run
        jobs.records.runStarted(record.id, run)
        let started = record
        let dispatcher = dispatcher
        let arrival = jobs.arrivals[record.id]
        // The record says `running` on disk before the run can end and say anything else; a shared store's
        // `runs` file has the start before that, so every attempt a record counts has its line.
        Task {
            await jobs.coordination?.recordRunStart(started, jobs)
            // With `--objects` the job's directory may be missing here (another replica received the job,
            // or the scratch directory was lost): made before the record is saved into it.
            let unplaced = await jobs.prepareScratch(started)
            try? await jobs.save(started)
            var outcome: Result<JobExecutor.Outcome, Error>
            var staging: InputStaging? = nil
            do {
                if let unplaced { throw unplaced }
                staging = try await jobs.stageInputs(
                    started, run, overlapping: dispatcher.readsGrowingInputs && !queued.hasInputsToFetch)
                var ready = started
                var fetchTime: TimeInterval = 0
                if queued.hasInputsToFetch {
                    let fetchStart = Date()
                    ready = try await jobs.fetchInputs(started, run)
                    fetchTime = Date().timeIntervalSince(fetchStart)
                    try await takeWorker(started.id, run, jobs)
                }
                outcome = await dispatcher.run(ready, run, fetchTime: fetchTime, staging: staging?.names ?? [])
            } catch {
                outcome = .failure(error)
            }
            if let arrival { outcome = await jobs.gate(started.id, outcome, on: arrival) }
            if let staging { outcome = await jobs.settle(started.id, outcome, staged: staging, run) }
            await self.completed(started.id, RunEnd(outcome, stop: run.stopReason), jobs)
        }
    }

    /// Suspends the run `id`, its inputs fetched, until it has a worker: at once when one is free and no
    /// other fetched run waits for one. Throws `cancelled` when the run is asked to stop first.
    private func takeWorker(_ id: String, _ run: RunningJob, _ jobs: isolated JobService) async throws {
        guard !slots.fetched(id) else { return }
        try await run.untilStopped(doing: "waiting for a worker") { await jobs.waitForWorker(id) }
    }

    /// Suspends until the run `id` has a worker, or the calling task is cancelled (the run was asked to
    /// stop): the wait is then given up.
    func waitForWorker(_ id: String, _ jobs: isolated JobService) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waker: CheckedContinuation<Void, Never>) in
                guard !Task.isCancelled else { return waker.resume() }
                slots.wake(id, with: waker)
            }
        } onCancel: {
            Task { await jobs.stopWaitingForWorker(id) }
        }
    }

    /// The run `id` no longer waits for a worker.
    func stopWaiting(_ id: String) {
        slots.stopWaiting(id)
    }

    /// Saves the end in the record (the scheduler notes it in the `runs` file once saved), frees the run's
    /// place and starts the next job.
    private func completed(_ id: String, _ end: RunEnd, _ jobs: isolated JobService) async {
        if let record = jobs.records[id] { jobs.coordination?.runEnded(record, end.event) }
        defer {
            ended(id, jobs)
            jobs.startNext()
        }
        do {
            switch end {
            case .leaseLost:
                ended(id, jobs)
                await jobs.coordination?.leaseLost(id, jobs)
                jobs.wakeAll(id)
            case .succeeded(let done):
                guard let record = jobs.records[id] else { return }
                let written = done.outputs.reduce(0) { $0 + $1.size }
                if let refusal = jobs.ledger.refusal(ofOutputs: written, of: record) {
                    return try await refuseOutputs(id, refusal, jobs)
                }
                if let failure = await storeObjects(id, attempt: record.attempts, done, jobs) {
                    return try await failEnded(id, failure, jobs)
                }
                if jobs.objects != nil, let run = running[id], run.stopReason == .cancelledByUser {
                    // Cancelled while its outputs went up: they go again, and the job ends as asked.
                    await jobs.removeObjects(of: [id])
                    jobs.records[id]?.progress = run.progress
                    return try await jobs.cancel(id)
                }
                jobs.records[id]?.outputs = done.listedOutputs(ofJob: id, link: jobs.outputLink)
                jobs.records[id]?.warnings = done.warnings
                jobs.records[id]?.result = done.result
                try await jobs.finish(id, state: .succeeded, error: nil)
            case .requeued:
                guard var record = jobs.records[id] else { return }
                record.state = .queued
                record.progress = 0
                record.startedAt = nil
                record.markUnfetchedSources(.pending)
                jobs.records[id] = record
                jobs.events.changed(record, from: .running)
                try await jobs.save(record)
                await jobs.scheduler.requeue(id, jobs)
            case .cancelled:
                // A cancelled job keeps the progress it had made (the stored record has none while it runs).
                if let run = running[id] { jobs.records[id]?.progress = run.progress }
                try await jobs.cancel(id)
            case .failed(let error):
                try await jobs.finish(id, state: .failed, error: error)
            }
        } catch {
            jobs.events.logger.error(
                "recording the end of a job failed", metadata: ["job_id": .string(id), "error": .string("\(error)")])
            if (error as? StoreError)?.code == .leaseLost {
                // Another replica took the job over while this run's end was on its way (the replica stalled
                // past its lease, e.g. while the outputs went up): the index takes the stored record, as
                // for a run stopped by the lost lease. Left as it was, the index kept this run's `running`
                // record, which the changes of the job ignore while it runs here, for good (found by
                // ObjectClusterTests: the replica answered 409 for the job's outputs once it succeeded).
                ended(id, jobs)
                await jobs.coordination?.leaseLost(id, jobs)
                jobs.wakeAll(id)
            } else {
                jobs.coordination?.abandon(id)
            }
        }
    }

    /// Fails a run whose outputs would take its owner past the quota (runs of one token at once can each
    /// fit alone): the outputs are removed, never listed.
    private func refuseOutputs(_ id: String, _ refusal: JobError, _ jobs: isolated JobService) async throws {
        try await jobs.io { [store = jobs.store] in try store.removeOutputs(id: id) }
        try await failEnded(id, refusal, jobs)
    }

    /// Puts the outputs of a successful run, attempt `attempt` of the job, into the bucket (`--objects`)
    /// under keys of that attempt before the job may succeed, saying so in the job's log first; returns why
    /// the job fails instead (`storage_unavailable`), or nil once every output is stored (or without
    /// `--objects`). A cancel that comes meanwhile is taken once the upload ends (the caller removes the
    /// objects then).
    private func storeObjects(
        _ id: String, attempt: Int, _ done: JobExecutor.Outcome, _ jobs: isolated JobService
    ) async -> JobError? {
        guard let objects = jobs.objects else { return nil }
        do {
            let (store, count, bytes) = (jobs.store, done.outputs.count, done.outputs.reduce(0) { $0 + $1.size })
            try await jobs.io {
                let log = JobLog(path: store.logPath(id: id))
                log.write("storing \(count) outputs (\(bytes) bytes) in the bucket")
                log.close()
            }
            try await objects.upload(
                done.outputs, ofJob: id, attempt: attempt, from: jobs.store.outputDirectory(id: id))
            return nil
        } catch let error as MediaError {
            return JobError(code: error.code.rawValue, message: error.message)
        } catch {
            return JobError(code: MediaError.Code.storageUnavailable.rawValue, message: "\(error)")
        }
    }

    /// Fails a run that ended well but whose outputs cannot be listed, saying why in the job's log (after
    /// the run's own `succeeded`, which the line below it overrules).
    private func failEnded(_ id: String, _ failure: JobError, _ jobs: isolated JobService) async throws {
        let store = jobs.store
        try await jobs.io {
            let log = JobLog(path: store.logPath(id: id))
            log.write("the run ended well, but the job failed: \(failure.code): \(failure.message)")
            log.close()
        }
        try await jobs.finish(id, state: .failed, error: failure)
    }

    /// The run no longer counts as under way, holds no place, nor reports the job's progress.
    private func ended(_ id: String, _ jobs: isolated JobService) {
        running[id] = nil
        slots.release(id)
        jobs.records.runEnded(id)
    }
}
