import JobStore

/// Decides when this server runs which queued job, and answers for the jobs it does not run.
///
/// `LocalScheduler` keeps a queue in memory, for a server that is its store's only user; `LeaseScheduler`
/// claims jobs through leases, for replicas sharing a store. A scheduler belongs to one `JobService` and
/// runs on its actor: each method that needs the service takes it as an `isolated` parameter. So the
/// scheduler's state needs no lock, nothing else happens on the service between a check and the action
/// it decides (other than at an `await`), and store operations are queued in the order the actor asks.
protocol JobScheduler: AnyObject {
    /// Names this server in the records of the jobs it runs (`JobRecord.replica`); nil for a lone server.
    var replicaID: String? { get }
    /// Whether the service's index holds every job's current record, so that a status request may answer
    /// from it without the actor (`JobService.snapshot`).
    var indexIsComplete: Bool { get }

    // MARK: Lifecycle

    /// Loads the store into the service's index, recovering what an earlier process left, and starts jobs.
    func start(_ jobs: isolated JobService) async throws
    /// Does the scheduler's periodic work until the calling task is cancelled.
    func beat(_ jobs: isolated JobService) async

    // MARK: Queue

    /// Jobs waiting to run (in a shared store, those of every replica).
    func queuedCount(_ jobs: isolated JobService) -> Int
    /// Takes a new queued job, already in the index.
    func enqueue(_ id: String, _ jobs: isolated JobService)
    /// Starts queued jobs (`JobRunner.begin`) while the runner has room for them (a worker, or a fetch slot
    /// for a job with URL inputs) and the service accepts work.
    func startNext(_ jobs: isolated JobService)
    /// Takes back a job whose run a shutdown stopped, its record saved as `queued` again.
    func requeue(_ id: String, _ jobs: isolated JobService) async

    // MARK: Reading, waiting, cancelling

    /// The record with its live progress, as this scheduler knows it best.
    func record(_ id: String, _ jobs: isolated JobService) async -> JobRecord?
    /// Brings the index up to date before it is listed whole.
    func refresh(_ jobs: isolated JobService) async
    /// Waits until the job ends or `seconds` pass; returns the record then.
    func wait(for id: String, seconds: Double, _ jobs: isolated JobService) async -> JobRecord?
    /// Cancels a queued or running job, waiting up to `timeout` for a running one to stop, or deletes a
    /// finished one. Returns the cancelled record, or nil when the job was deleted.
    func cancelOrDelete(_ id: String, timeout: Double, _ jobs: isolated JobService) async throws -> JobRecord?

    // MARK: Runs

    /// Notes a run's start where other replicas can read it.
    func recordRunStart(_ record: JobRecord, _ jobs: isolated JobService) async
    /// Takes a run's `end <outcome>`, to be noted once the record that says so is saved: at `release` or
    /// `requeue` (or `leaseLost`, whose end is `lost`); `abandon`, whose record was not saved, drops it.
    func runEnded(_ record: JobRecord, _ event: String)
    /// The lease a save of the job's record must still hold, if the job has one.
    func heldLease(of id: String) -> Lease?
    /// The job ended here, its record saved: lets go of what held it to this server.
    func release(_ id: String, _ jobs: isolated JobService) async
    /// Another replica took the job over while it ran here: the index takes the store's record.
    func leaseLost(_ id: String, _ jobs: isolated JobService) async
    /// Recording the end of the job's run failed: the job is left to whoever claims it next.
    func abandon(_ id: String)

    // MARK: Retention and webhooks

    /// Deletes a finished job past its retention from the store, unless another replica still holds it.
    func deleteExpired(_ id: String, _ jobs: isolated JobService) async
    /// Whether this server resumes the webhook deliveries of `record`, an ended job, at start.
    func resumesDeliveries(of record: JobRecord) -> Bool
}
