import Foundation
import JobStore
import MediaCore

/// The server side of process isolation: runs one job in a `mediad worker` child, feeds its progress to
/// the `RunningJob`, kills it (SIGKILL) on cancel, shutdown or timeout, and turns how it ended into the
/// job's outcome.
///
/// `run` blocks until the child is gone, so it is called on a thread of its own (`DedicatedThread`), never
/// on an event loop or the job service actor.
package struct WorkerSupervisor {
    package let store: JobStore
    package let settings: IsolationSettings

    /// Runs the job to its end; writes to the job's log only before the worker starts and after it ended.
    package func run(_ record: JobRecord, _ run: RunningJob) -> Result<JobExecutor.Outcome, Error> {
        let logPath = store.logPath(id: record.id)
        let log = JobLog(path: logPath)
        // The worker appends libav's lines to the log while it runs; this process keeps out of the file.
        defer { log.close() }
        let timeout = settings.timeout(
            inputBytes: record.inputs.reduce(0) { $0 + $1.size }, scale: record.kind.timeScale)
        let limits = WorkerLimits(
            memory: settings.jobMemory, maxOutput: settings.maxOutput, cpuSeconds: settings.cpuSeconds(timeout: timeout)
        )
        let child = WorkerChild(
            dataDirectory: store.root, id: record.id, limits: limits,
            minimumFreeBytes: store.watermark.minimumFreeBytes)
        do {
            try child.start()
        } catch {
            log.write("attempt \(record.attempts): cannot start a worker: \(error)")
            return .failure(MediaError(.internalError, "cannot start a worker process: \(error)"))
        }
        log.write(
            "attempt \(record.attempts): \(record.kind.rawValue) started in worker \(child.pid) (timeout \(Int(timeout)) s, "
                + "memory \(limits.memory) bytes)")
        log.close()
        let watchdog = ChildWatchdog(child, timeout: timeout) { run.stopReason != .none }
        var final: WorkerMessage?
        let complete = child.readMessages { message in
            if let progress = message.progress { run.progress = progress }
            if message.succeeded != nil || message.failed != nil { final = message }
        }
        let end = child.wait()
        let killed = watchdog.disarm()
        let reopened = JobLog(path: logPath)
        defer { reopened.close() }
        let stderr = child.stderrTail()
        if !stderr.isEmpty { reopened.write("worker stderr (last lines):\n\(stderr)") }
        let outcome = Self.outcome(
            final, end: end, killed: killed,
            stop: run.stopReason, timeout: timeout, stderr: stderr, limits: limits, complete: complete)
        reopened.write("worker \(child.pid) \(end)")
        if case .failure = outcome { Self.removePartialOutputs(store.outputDirectory(id: record.id)) }
        return outcome
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

    /// Deletes the temporary files a killed worker could not (`.<name>.partial-…`), so no partial output
    /// is left behind.
    private static func removePartialOutputs(_ directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(".") && name.contains(".partial-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
