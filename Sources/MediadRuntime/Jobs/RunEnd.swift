import JobStore
import MediaCore

/// How a run ended, as the job service records it: what the job's record becomes, and the word the
/// `runs` file of a shared store gets.
///
/// Worked out once from the run's outcome and why it was stopped, so the record and the `runs` file can
/// never disagree.
enum RunEnd {
    /// Another replica took the job over (this one missed renewing its lease): the store's record stands.
    case leaseLost
    case succeeded(JobExecutor.Outcome)
    /// Stopped by a shutdown: the job goes back to the queue for the next start.
    case requeued
    case cancelled
    case failed(JobError)

    /// `stop` decides first: a run whose lease was lost ends as lost whatever it did, and one that failed
    /// after a shutdown asked it to stop is requeued rather than failed.
    init(_ outcome: Result<JobExecutor.Outcome, Error>, stop: RunningJob.StopReason) {
        switch (outcome, stop) {
        case (_, .leaseLost): self = .leaseLost
        case (.success(let done), _): self = .succeeded(done)
        case (.failure, .shutdown): self = .requeued
        case (.failure(let error as MediaError), _) where error.code == .cancelled: self = .cancelled
        case (.failure(let error as MediaError), _):
            self = .failed(JobError(code: error.code.rawValue, message: error.message))
        case (.failure(let error), _): self = .failed(JobError(code: "internal_error", message: "\(error)"))
        }
    }

    /// The run's end in the `runs` file.
    var event: String {
        switch self {
        case .leaseLost: "lost"
        case .succeeded: "succeeded"
        case .requeued: "requeued"
        case .cancelled: "cancelled"
        case .failed: "failed"
        }
    }
}
