import CoreMetrics

/// The job metrics of the runtime, recorded through swift-metrics (the server bootstraps the backend and
/// exposes it at `/metrics`). Jobs are labelled with their kind and final state only.
package enum JobMetrics {
    package static let jobs = "mediad_jobs_total"
    package static let jobDuration = "mediad_job_duration_seconds"
    package static let workerCrashes = "mediad_worker_crashes_total"

    /// A job that reached a final state after running for `ran` (nil if it never started).
    package static func jobFinished(kind: String, state: String, ran: Duration?) {
        Counter(label: jobs, dimensions: [("kind", kind), ("state", state)]).increment()
        guard let ran else { return }
        let (seconds, attoseconds) = ran.components
        Timer(label: jobDuration, dimensions: [("kind", kind)])
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A job's worker process died by a signal or ran out of memory.
    package static func workerCrashed(kind: String) {
        Counter(label: workerCrashes, dimensions: [("kind", kind)]).increment()
    }
}
