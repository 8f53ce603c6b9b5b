import Foundation
import JobStore

/// Decides when this server runs which queued job, and answers for the jobs it does not run.
///
/// `LocalScheduler` keeps a queue in memory, for a server that is its store's only user; `LeaseScheduler`
/// claims jobs through leases, for replicas sharing a store, and also does the replicas' part
/// (`ReplicaCoordination`). A scheduler belongs to one `JobService` and runs on its actor: each method that
/// needs the service takes it as an `isolated` parameter. So the scheduler's state needs no lock, nothing
/// else happens on the service between a check and the action it decides (other than at an `await`), and
/// store operations are queued in the order the actor asks. It starts a run with `RunTracker.begin`.
protocol JobScheduler: AnyObject {
    /// Loads the store into the service's index, recovering what an earlier process left, and starts jobs.
    func start(_ jobs: isolated JobService) async throws

    // MARK: Queue

    /// Jobs waiting to run (in a shared store, those of every replica).
    func queuedCount(_ jobs: isolated JobService) -> Int
    /// The queue depth `/metrics` reports: `queuedCount`, but counted by the database when there is one, so
    /// that an autoscaler reads the cluster's queue from whichever replica it scrapes.
    func reportedQueueDepth(_ jobs: isolated JobService) async -> Int
    /// Takes a new queued job, already in the index, and starts what has room (`startNext`).
    func enqueue(_ id: String, _ jobs: isolated JobService)
    /// Starts queued jobs (`RunTracker.begin`) while the tracker has room for them (a worker, or a fetch
    /// slot for a job with URL inputs) and the service accepts work.
    func startNext(_ jobs: isolated JobService)
    /// Takes back a job whose run a shutdown stopped, its record saved as `queued` again.
    func requeue(_ id: String, _ jobs: isolated JobService) async

    // MARK: Reading, waiting, cancelling

    /// The record with its live progress, as this scheduler knows it best.
    func record(_ id: String, _ jobs: isolated JobService) async -> JobRecord?
    /// Waits until the job ends or `seconds` pass; returns the record then.
    func wait(for id: String, seconds: Double, _ jobs: isolated JobService) async -> JobRecord?
    /// Cancels a queued or running job, waiting up to `timeout` for a running one to stop, or deletes a
    /// finished one. Returns the cancelled record, or nil when the job was deleted.
    func cancelOrDelete(_ id: String, timeout: Double, _ jobs: isolated JobService) async throws -> JobRecord?

    // MARK: Retention and webhooks

    /// Deletes the finished jobs kept longer than `retention` seconds from the index and the store, unless
    /// another replica still holds them.
    func deleteExpired(olderThan retention: TimeInterval, _ jobs: isolated JobService) async
    /// Whether this server resumes the webhook deliveries of `record`, an ended job, at start.
    func resumesDeliveries(of record: JobRecord) -> Bool
}

extension JobScheduler {
    func reportedQueueDepth(_ jobs: isolated JobService) async -> Int {
        queuedCount(jobs)
    }

    /// Takes each finished job of the index kept longer than `retention` out of the index and hands its id
    /// to `delete`, which removes it from the store.
    func deleteExpired(
        olderThan retention: TimeInterval, _ jobs: isolated JobService,
        by delete: (String, isolated JobService) async -> Void
    ) async {
        for id in Retention.expired(jobs.records.all, olderThan: retention, now: Date()) {
            jobs.records[id] = nil
            await delete(id, jobs)
        }
    }
}
