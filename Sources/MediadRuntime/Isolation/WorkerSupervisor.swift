import Foundation
import JobStore
import MediaCore
import MediaJobs

/// The server side of process isolation: runs one job in a `mediad worker` taken from the `WorkerPool`,
/// feeds its progress to the `RunningJob`, kills it (SIGKILL) on cancel, shutdown or timeout, and turns how
/// it ended into the job's outcome. A worker that gave its final message goes back to the pool.
///
/// Called by the `RunDispatcher` with `--isolation process`; the worker's `JobWorker` runs `JobExecutor`.
/// `run` blocks until the job has ended, so it is called on a thread of its own (`DedicatedThread`), never
/// on an event loop or the job service actor.
package struct WorkerSupervisor {
    package let store: JobStore
    package let settings: IsolationSettings
    package let pool: WorkerPool

    /// Runs the job to its end, sending the worker what it may write and which inputs are still being
    /// `staging` from the bucket; writes to the job's log only before the worker starts on it and after it
    /// ended. `fetchTime`, the seconds the run spent fetching URL inputs, is taken off the job's time limit.
    package func run(
        _ record: JobRecord, _ run: RunningJob, fetchTime: TimeInterval, allowance: OutputAllowance,
        staging: [String] = []
    ) -> Result<JobExecutor.Outcome, Error> {
        let logPath = store.logPath(id: record.id)
        let log = JobLog(path: logPath)
        // The worker appends libav's lines to the log while it runs; this process keeps out of the file.
        defer { log.close() }
        let timeout = settings.timeout(
            inputBytes: record.inputs.reduce(0) { $0 + $1.size }
                + (record.arrivingInputs ?? []).reduce(0) { $0 + $1.size },
            scale: record.kind.timeScale, spent: fetchTime)
        let limits = WorkerLimits(
            memory: settings.jobMemory, maxOutput: settings.maxOutput, cpuSeconds: settings.cpuSeconds(timeout: timeout)
        )
        let child: WorkerChild
        do {
            child = try start(record.id, cpuSeconds: limits.cpuSeconds, allowance: allowance, staging: staging)
        } catch {
            log.write("attempt \(record.attempts): cannot start a worker: \(error)")
            return .failure(MediaError(.internalError, "cannot start a worker process: \(error)"))
        }
        log.write(
            "attempt \(record.attempts): \(record.kind.rawValue) started in worker \(child.pid), its job "
                + "\(child.jobsStarted) (timeout \(Int(timeout)) s, CPU \(limits.cpuSeconds) s, memory \(limits.memory) bytes)"
        )
        log.close()
        let watchdog = ChildWatchdog(child, timeout: timeout) { run.stopReason != .none }
        var final: WorkerMessage?
        let report = child.readJobMessages { message in
            if let progress = message.progress { run.progress = progress }
            if message.succeeded != nil || message.failed != nil { final = message }
        }
        let killed = watchdog.disarm()
        if report == .final, killed == .none, let final {
            // A worker that ran out of memory may have left its address space in pieces: not reused.
            if final.failed?.code == MediaError.Code.outOfMemory.rawValue { child.retire() }
            pool.giveBack(child)
            let outcome = Self.outcome(final)
            if case .failure = outcome { Self.removePartialOutputs(store.outputDirectory(id: record.id)) }
            return outcome
        }
        // The worker is done for: it ended, was killed, or lost its report and is killed now.
        if report == .refused { child.kill() }
        let end = child.wait()
        let reopened = JobLog(path: logPath)
        defer { reopened.close() }
        let stderr = child.stderrTail()
        if !stderr.isEmpty { reopened.write("worker stderr (last lines):\n\(stderr)") }
        let outcome = Self.outcome(
            final, end: end, killed: killed,
            stop: run.stopReason, timeout: timeout, stderr: stderr, limits: limits, complete: report != .refused)
        reopened.write("worker \(child.pid) \(end)")
        if case .failure = outcome { Self.removePartialOutputs(store.outputDirectory(id: record.id)) }
        return outcome
    }

    /// A worker from the pool running job `id`. An idle worker can have died since its last job (its
    /// stdin is then closed): a fresh one takes the job instead.
    private func start(_ id: String, cpuSeconds: Int, allowance: OutputAllowance, staging: [String]) throws
        -> WorkerChild
    {
        let worker = try pool.take()
        do {
            try worker.send(job: id, cpuSeconds: cpuSeconds, allowance: allowance, staging: staging)
            return worker
        } catch {
            worker.kill()
            _ = worker.wait()
            let fresh = try pool.take()
            try fresh.send(job: id, cpuSeconds: cpuSeconds, allowance: allowance, staging: staging)
            return fresh
        }
    }

    /// The outcome a worker's final message reports.
    private static func outcome(_ final: WorkerMessage) -> Result<JobExecutor.Outcome, Error> {
        if let outcome = final.succeeded?.job { return .success(outcome) }
        let failure =
            final.failed ?? WorkerMessage.Failure(code: "internal_error", message: "the worker sent no result")
        return .failure(MediaError(MediaError.Code(rawValue: failure.code), failure.message))
    }

    /// The job's outcome from the worker's final message and how it ended, by these rules, first match:
    /// killed by us → `cancelled` (or the stop that requeues it) or `timeout`; a message line over the
    /// limit → `result_too_large`; a final message → what it says; otherwise how the worker ended
    /// (`WorkerChild.End.failure`).
    private static func outcome(
        _ final: WorkerMessage?, end: WorkerChild.End, killed: ChildWatchdog.Verdict, stop: RunningJob.StopReason,
        timeout: TimeInterval, stderr: String, limits: WorkerLimits, complete: Bool
    ) -> Result<JobExecutor.Outcome, Error> {
        switch killed {
        case .stopped:
            return .failure(
                MediaError(.cancelled, stop == .shutdown ? "stopped for a shutdown" : "the job was cancelled"))
        case .timedOut:
            return .failure(MediaError(.timeout, "the job ran longer than its limit of \(Int(timeout)) s"))
        case .none: break
        }
        guard complete else {
            return .failure(
                MediaError(
                    .resultTooLarge,
                    "the worker's report was over the \(WorkerMessageReader.maximumLineBytes)-byte limit and was dropped"
                ))
        }
        if let outcome = final?.succeeded?.job { return .success(outcome) }
        if let failure = final?.failed {
            return .failure(MediaError(MediaError.Code(rawValue: failure.code), failure.message))
        }
        return .failure(end.failure(doing: "the job", stderr: stderr, limits: limits))
    }

    /// Deletes the temporary files a killed worker could not (`.<name>.partial-…`), in the output
    /// directory and its folders, so no partial output is left behind.
    private static func removePartialOutputs(_ directory: String) {
        let names = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        for name in names
        where URL(fileURLWithPath: name).lastPathComponent.hasPrefix(".") && name.contains(".partial-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
