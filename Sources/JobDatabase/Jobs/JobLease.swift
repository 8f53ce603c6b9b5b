import Foundation
import JobStore

/// A replica's hold on a running job, shown with every write it makes to the job: the write applies only
/// while the job's holder and attempt are still these.
///
/// The attempt is the fencing token: each claim counts one more, so a holder that stalled past its
/// lease's expiry, whose job was claimed again meanwhile, holds an attempt that no longer matches, and its
/// late writes change nothing.
public struct JobLease: Sendable, Hashable {
    public var jobID: String
    /// The replica holding it (`--replica-id`).
    public var holder: String
    /// The job's run this lease is for: 1 for the first.
    public var attempt: Int
    /// Until when the lease holds unless renewed, by the database's clock.
    public var expiresAt: Date

    public init(jobID: String, holder: String, attempt: Int, expiresAt: Date) {
        self.jobID = jobID
        self.holder = holder
        self.attempt = attempt
        self.expiresAt = expiresAt
    }
}

/// A job claimed from the queue: the lease, and the record as the claim left it (`running`, its `attempts`
/// the lease's attempt, `replica` the holder, `started_at` the claim's time, progress 0).
public struct JobClaim: Sendable {
    public var lease: JobLease
    public var record: JobRecord
    /// A cancel request came before the claim (a client cancelled the queued job).
    public var cancelRequested: Bool
}

/// What a renewal found: the lease's new expiry and whether a cancel request is waiting for the holder.
public struct LeaseRenewal: Sendable, Equatable {
    public var expiresAt: Date
    public var cancelRequested: Bool
}

/// A job as the database has it: the record and the coordination beside it.
public struct StoredJob: Sendable {
    /// The record; a running job's `progress` is the one its holder last reported.
    public var record: JobRecord
    /// The replica holding the lease, while one does.
    public var holder: String?
    /// When the lease expires, by the database's clock, while one is held.
    public var leaseExpiresAt: Date?
    /// Claims so far: the attempt of the current or last run.
    public var attempts: Int
    /// A client asked for the job to be cancelled and its holder has not acted on it yet.
    public var cancelRequested: Bool
    /// The replica delivering the ended job's outputs and webhook, while they are owed (the delivery lease).
    public var deliverer: String?
    /// When the delivery lease expires, by the database's clock, while one is held.
    public var deliveryExpiresAt: Date?
}

/// What `JobDatabase.delete` did.
public enum JobDeletion: Sendable, Equatable {
    case deleted
    /// The job runs under a live lease: its holder ends it first.
    case leased
    case notFound
}

/// One run of a job: who ran which attempt, when, and how it ended.
public struct JobRun: Sendable, Equatable {
    public var jobID: String
    public var attempt: Int
    public var replica: String
    public var startedAt: Date
    /// Nil while the run is under way, and for good when its replica died and the job was taken over.
    public var endedAt: Date?
    /// How it ended (`succeeded`, `failed`, `cancelled`, `requeued`, …), as the holder said on release.
    public var outcome: String?
}

/// Deliveries taken over from a replica whose delivery lease expired: the record as stored (its
/// `deliveries` and `notifications` the attempts made so far) and the replica that held them.
public struct DeliveryTakeover: Sendable {
    public var record: JobRecord
    public var from: String
}
