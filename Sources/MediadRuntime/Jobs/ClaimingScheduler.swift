import JobStore

/// A scheduler for replicas whose queue is the index of every job (`LeaseScheduler` on a shared data
/// directory, `DatabaseScheduler` on PostgreSQL): it keeps no queue of its own, and runs a job only after
/// claiming it in a claim pass (`claimPass`), one pass at a time (`passes`).
protocol ClaimingScheduler: JobScheduler, ReplicaCoordination {
    /// Keeps the claim passes to one at a time.
    var passes: ClaimPasses { get set }
    /// Claims jobs and starts their runs while this replica accepts work and has room; goes round again
    /// while `passes` says so.
    func claimPass(_ jobs: isolated JobService) async
}

extension ClaimingScheduler {
    /// The queued jobs of every replica, as the index has them.
    func queuedCount(_ jobs: isolated JobService) -> Int {
        jobs.records.count { $0.state == .queued }
    }

    /// The index is the queue (other replicas learn of the job from the store): a claim pass here looks
    /// at once.
    func enqueue(_ id: String, _ jobs: isolated JobService) {
        startNext(jobs)
    }

    /// Starts a claim pass unless one is under way (which then goes round once more).
    func startNext(_ jobs: isolated JobService) {
        guard passes.start() else { return }
        Task { await self.claimPass(jobs) }
    }

    /// A run stopped by a drain: its release (with the record saved `queued`) notes `requeued` and lets any
    /// replica claim the job again at once.
    func requeue(_ id: String, _ jobs: isolated JobService) async {
        await release(id, jobs)
    }
}
