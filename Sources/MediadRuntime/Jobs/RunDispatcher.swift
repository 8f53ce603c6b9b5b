import Foundation
import JobStore
import MediaCore
import MediaJobs

/// Runs one job to its end where `--isolation` says, on a thread of its own (`DedicatedThread`), so that
/// neither the job service's actor nor a shared pool waits on it: with `process` it hands the job to a
/// `WorkerSupervisor` (a `mediad worker` child), with `none` it calls `JobExecutor` itself.
///
/// Called by `RunTracker`, which dispatches at most `workers` runs at once; progress and stop requests pass
/// through the run's `RunningJob` while it runs. It works out what the run may write (`StorageLedger`) and
/// writes how the run ended to the job's log.
struct RunDispatcher: Sendable {
    let store: JobStore
    let isolation: IsolationSettings
    /// The warm workers of `--isolation process`.
    let pool: WorkerPool
    /// Tells each run what it may write.
    let ledger: StorageLedger

    init(store: JobStore, isolation: IsolationSettings, ledger: StorageLedger) {
        self.store = store
        self.isolation = isolation
        self.ledger = ledger
        pool = WorkerPool(store: store, settings: isolation)
    }

    /// Whether a run's worker can read an input while it is still being staged from the bucket: only a
    /// worker in a process of its own, which is killed when the staging fails while it waits for bytes.
    var readsGrowingInputs: Bool { isolation.mode == .process }

    /// The run's outcome, once its thread is done. `fetchTime`, the seconds the run spent fetching the
    /// job's URL inputs, counts against the job's time limit; `staging` names the inputs still being
    /// staged from the bucket (only when `readsGrowingInputs`).
    func run(
        _ record: JobRecord, _ run: RunningJob, fetchTime: TimeInterval, staging: [String] = []
    ) async -> Result<JobExecutor.Outcome, Error> {
        do {
            return try await DedicatedThread.run(name: "mediad-job") {
                execute(record, run, fetchTime: fetchTime, staging: staging)
            }
        } catch {
            return .failure(error)
        }
    }

    /// Runs the job to its end, with what it may write measured as it starts, and writes how it ended to
    /// its log.
    private func execute(
        _ record: JobRecord, _ run: RunningJob, fetchTime: TimeInterval, staging: [String]
    ) -> Result<JobExecutor.Outcome, Error> {
        let allowance = ledger.allowance(for: record, maxOutput: isolation.maxOutput)
        let outcome =
            switch isolation.mode {
            case .process:
                WorkerSupervisor(store: store, settings: isolation, pool: pool).run(
                    record, run, fetchTime: fetchTime, allowance: allowance, staging: staging)
            case .none: runInProcess(record, run, allowance: allowance)
            }
        let log = JobLog(path: store.logPath(id: record.id))
        switch outcome {
        case .success(let done):
            for warning in done.warnings { log.write("warning: \(warning)") }
            log.write("succeeded")
        case .failure(let error as MediaError) where error.code == .cancelled:
            // A run stopped for its failed upload ends with the upload's error, written once it is known.
            log.write(run.stopReason == .inputFailed ? "stopped: its input did not arrive whole" : "cancelled")
        case .failure(let error):
            log.write("failed: \(error)")
        }
        log.close()
        return outcome
    }

    /// Runs the job on the calling thread, with libav's lines from this thread in the job's log. No
    /// RLIMIT_FSIZE guards the server's own process: the `OutputMeter` alone holds the outputs to
    /// `allowance`.
    private func runInProcess(
        _ record: JobRecord, _ run: RunningJob, allowance: OutputAllowance
    ) -> Result<JobExecutor.Outcome, Error> {
        let log = JobLog(path: store.logPath(id: record.id))
        defer { log.close() }
        log.write("attempt \(record.attempts): \(record.kind.rawValue) started")
        let space = OutputSpaceGuard(store.watermark)
        let meter = OutputMeter(directory: store.outputDirectory(id: record.id), allowance: allowance)
        let context = JobContext(
            reportProgress: { run.progress = $0 }, isCancelled: { run.stopReason != .none },
            checkResources: {
                try space.check()
                try meter.check()
            }, outputAllowance: allowance)
        return log.capturing { Result { try JobExecutor(store: store).run(record, context: context) } }
    }
}
