import JobStore

/// What a server sharing its jobs with other replicas does beyond scheduling: saving and publishing
/// records where the others read them, the hooks of leases, the runs history and the heartbeat.
/// `LeaseScheduler` implements it on a shared data directory, `DatabaseScheduler` on PostgreSQL; a server
/// of its own has none (`JobService.coordination` is nil).
///
/// Like `JobScheduler`, it belongs to one `JobService` and runs on its actor: a method that needs the
/// service takes it as an `isolated` parameter. `RunTracker` calls the run hooks as a run starts and ends;
/// `JobService` saves every record through `save`, makes a new job known with `publish`, calls `release`
/// once an ended job's record is saved, `refresh` before listing the index whole, and `beat` from
/// `JobLifecycle`.
protocol ReplicaCoordination: AnyObject {
    /// Names this server in the records of the jobs it runs (`JobRecord.replica`).
    var replicaID: String { get }

    /// Renews the leases held here, passes on cancel requests, refreshes the index and claims work, every
    /// heartbeat, until the calling task is cancelled.
    func beat(_ jobs: isolated JobService) async
    /// Brings the index up to date with what other replicas wrote, before it is listed whole.
    func refresh(_ jobs: isolated JobService) async
    /// Whether the index holds every job as it is, kept current as other replicas change them (by the
    /// database's notifications), so that a read needs no look at the store.
    var keepsIndexCurrent: Bool { get }
    /// Whether the store that coordinates the replicas answers; a server that cannot reach it takes no
    /// jobs and is not ready.
    var isReachable: Bool { get }

    // MARK: Records

    /// Makes a new job, its directory stored, known to the other replicas before the API answers for it.
    func publish(_ record: JobRecord, _ jobs: isolated JobService) async throws
    /// Saves a record; a job that runs here only while this replica still holds it (else `lease_lost`).
    func save(_ record: JobRecord, _ jobs: isolated JobService) async throws

    // MARK: Runs

    /// Notes a run's start where other replicas can read it (the job's `runs` file).
    func recordRunStart(_ record: JobRecord, _ jobs: isolated JobService) async
    /// Takes a run's `end <outcome>`, to be noted once the record that says so is saved: at `release` (or
    /// `leaseLost`, whose end is `lost`); `abandon`, whose record was not saved, drops it.
    func runEnded(_ record: JobRecord, _ event: String)
    /// The job ended or went back to the queue here, its record saved: lets go of its lease.
    func release(_ id: String, _ jobs: isolated JobService) async
    /// Another replica took the job over while it ran here: the index takes the store's record.
    func leaseLost(_ id: String, _ jobs: isolated JobService) async
    /// Recording the end of the job's run failed: the job is left to whoever claims it next.
    func abandon(_ id: String)

    // MARK: Deliveries

    /// Saves the record of an ended job whose output deliveries and webhook this replica makes, and lets
    /// them go when `final` (nothing left to do); `lease_lost` when another replica makes them now.
    func saveDelivery(_ record: JobRecord, final: Bool, _ jobs: isolated JobService) async throws
    /// This replica found nothing (left) to deliver for the job: lets its deliveries go.
    func endDeliveries(_ id: String, _ jobs: isolated JobService) async
    /// Whether this replica still makes the job's deliveries, asked before each attempt.
    func holdsDeliveries(_ id: String, _ jobs: isolated JobService) async -> Bool
    /// Takes the job's deliveries for a redelivery on request; false when another replica makes them now.
    func takeDeliveries(_ id: String, _ jobs: isolated JobService) async throws -> Bool
}

/// Replicas sharing a data directory have no delivery leases: the replica that ran a job last delivers it
/// (`resumesDeliveries`), and a record's deliveries are saved as any record is.
extension ReplicaCoordination {
    func saveDelivery(_ record: JobRecord, final: Bool, _ jobs: isolated JobService) async throws {
        try await save(record, jobs)
    }

    func endDeliveries(_ id: String, _ jobs: isolated JobService) async {}

    func holdsDeliveries(_ id: String, _ jobs: isolated JobService) async -> Bool { true }

    func takeDeliveries(_ id: String, _ jobs: isolated JobService) async throws -> Bool { true }
}
