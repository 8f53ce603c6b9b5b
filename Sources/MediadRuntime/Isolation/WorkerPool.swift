import Foundation
import JobStore
import MediaCore
import Synchronization

/// The server's `mediad worker` processes between jobs, kept warm for the next one.
///
/// Starting a worker costs an `exec`, loading libav and its codec libraries and the Swift runtime: more
/// than a small job itself. So a worker that ended its job with a final message goes back to the pool and
/// takes the next job, up to `IsolationSettings.jobsPerWorker` jobs, after which it is retired (its stdin
/// closed, so it exits) and a fresh one started when needed. A worker that crashed, was killed (cancel,
/// timeout) or lost its report never comes back: whatever a job did to its process ends with that job.
/// Memory, output size and open files are the process's limits for every job; CPU time is a budget
/// renewed for each job (`WorkerLimits.allowCPU`).
///
/// At most `workers` are checked out at once (the scheduler's bound), so at most that many wait here.
/// When the server exits, their stdin ends and they exit too.
package final class WorkerPool: Sendable {
    private let store: JobStore
    private let settings: IsolationSettings
    private let idle = Mutex<[WorkerChild]>([])

    package init(store: JobStore, settings: IsolationSettings) {
        self.store = store
        self.settings = settings
    }

    /// The limits every pooled worker sets on itself: its CPU limit covers the whole of its life, its
    /// jobs at their longest.
    package var limits: WorkerLimits {
        let longestJob = settings.cpuSeconds(timeout: settings.timeoutCeiling)
        return WorkerLimits(
            memory: settings.jobMemory, maxOutput: settings.maxOutput,
            cpuSeconds: longestJob * settings.jobsPerWorker)
    }

    /// A worker ready for a job: an idle one still running, or a new one.
    package func take() throws -> WorkerChild {
        while let worker = idle.withLock({ $0.popLast() }) {
            if worker.isRunning { return worker }
        }
        let worker = WorkerChild(
            dataDirectory: store.root, limits: limits, minimumFreeBytes: store.watermark.minimumFreeBytes)
        try worker.start()
        return worker
    }

    /// How long a retired worker gets to exit before it is killed.
    static let retirementGrace: TimeInterval = 5

    /// Takes back a worker that ended its job with a final message, or retires it once it has run its
    /// share: closes its stdin and waits for it to exit, so no process is left behind.
    package func giveBack(_ worker: WorkerChild) {
        if worker.jobsStarted < settings.jobsPerWorker, worker.isRunning, !worker.isRetired {
            idle.withLock { $0.append(worker) }
            return
        }
        worker.retire()
        let watchdog = ChildWatchdog(worker, timeout: Self.retirementGrace)
        _ = worker.wait()
        _ = watchdog.disarm()
    }
}
