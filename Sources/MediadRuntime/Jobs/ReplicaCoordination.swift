import JobStore

/// What a server sharing its store with other replicas does beyond scheduling: the hooks of leases, the
/// `runs` file and the heartbeat. Only `LeaseScheduler` implements it; a server of its own has none
/// (`JobService.coordination` is nil), so nothing here needs an empty body.
///
/// Like `JobScheduler`, it belongs to one `JobService` and runs on its actor: a method that needs the
/// service takes it as an `isolated` parameter. `RunTracker` calls the run hooks as a run starts and ends;
/// `JobService` calls `release` once an ended job's record is saved, `heldLease` before every save,
/// `refresh` before listing the index whole, and `beat` from `JobLifecycle`.
protocol ReplicaCoordination: AnyObject {
    /// Names this server in the records of the jobs it runs (`JobRecord.replica`).
    var replicaID: String { get }

    /// Renews the leases held here, passes on cancel requests, refreshes the index and claims work, every
    /// heartbeat, until the calling task is cancelled.
    func beat(_ jobs: isolated JobService) async
    /// Brings the index up to date with what other replicas wrote, before it is listed whole.
    func refresh(_ jobs: isolated JobService) async

    // MARK: Runs

    /// Notes a run's start where other replicas can read it (the job's `runs` file).
    func recordRunStart(_ record: JobRecord, _ jobs: isolated JobService) async
    /// Takes a run's `end <outcome>`, to be noted once the record that says so is saved: at `release` (or
    /// `leaseLost`, whose end is `lost`); `abandon`, whose record was not saved, drops it.
    func runEnded(_ record: JobRecord, _ event: String)
    /// The lease a save of the job's record must still hold, if the job has one.
    func heldLease(of id: String) -> Lease?
    /// The job ended or went back to the queue here, its record saved: lets go of its lease.
    func release(_ id: String, _ jobs: isolated JobService) async
    /// Another replica took the job over while it ran here: the index takes the store's record.
    func leaseLost(_ id: String, _ jobs: isolated JobService) async
    /// Recording the end of the job's run failed: the job is left to whoever claims it next.
    func abandon(_ id: String)
}
