import Foundation
import JobStore

/// Schedules the jobs of a server that is its store's only user: a first-in, first-out queue in memory,
/// from which a job that has no room yet (no free worker, or no free fetch slot for a job with URL inputs)
/// lets the next one that has start before it.
///
/// The queue is rebuilt from the store at start, with interrupted runs requeued (or, after three attempts,
/// failed). Nothing else writes the store, so the index always holds every job's current record; there
/// are no leases, no heartbeat, and no `runs` file: it has no `ReplicaCoordination`.
final class LocalScheduler: JobScheduler {
    /// Ids of the queued jobs, in the order they run; a run stopped by shutdown goes back to the head.
    private var queue: [String] = []

    func start(_ jobs: isolated JobService) async throws {
        let loaded = try await jobs.loadStore()
        let now = Date()
        for record in loaded.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let recovered = Recovery.recover(record, now: now)
            if recovered != record { try await jobs.save(recovered) }
            if recovered.state != record.state { jobs.events.changed(recovered, from: record.state) }
            jobs.records[record.id] = recovered
            if recovered.state == .queued { queue.append(record.id) }
        }
        startNext(jobs)
    }

    // MARK: Queue

    func queuedCount(_ jobs: isolated JobService) -> Int {
        queue.count
    }

    func enqueue(_ id: String, _ jobs: isolated JobService) {
        queue.append(id)
        startNext(jobs)
    }

    /// Starts the first queued job the run tracker has room for, again and again: a job fetching its inputs
    /// by URL does not wait for a worker, nor one with its input at hand for a fetch slot. Jobs no longer
    /// queued (cancelled) are taken off the queue on the way.
    func startNext(_ jobs: isolated JobService) {
        while jobs.accepting, !jobs.runs.isFull,
            let next = queue.firstIndex(where: { id in
                jobs.records[id].map { $0.state != .queued || jobs.runs.hasRoom(for: $0) } ?? true
            })
        {
            let id = queue.remove(at: next)
            guard let record = jobs.records[id], record.state == .queued else { continue }
            jobs.runs.begin(record, jobs)
        }
    }

    func requeue(_ id: String, _ jobs: isolated JobService) async {
        queue.insert(id, at: 0)
    }

    // MARK: Reading, waiting, cancelling

    func record(_ id: String, _ jobs: isolated JobService) async -> JobRecord? {
        jobs.localRecord(id)
    }

    func wait(for id: String, seconds: Double, _ jobs: isolated JobService) async -> JobRecord? {
        guard let current = jobs.records[id] else { return nil }
        guard !current.state.isTerminal, seconds > 0 else { return jobs.localRecord(id) }
        await jobs.park(id, seconds: seconds)
        return jobs.localRecord(id)
    }

    func cancelOrDelete(_ id: String, timeout: Double, _ jobs: isolated JobService) async throws -> JobRecord? {
        if jobs.records[id]?.state == .queued { queue.removeAll { $0 == id } }
        return try await jobs.cancelOrDeleteIndexed(id, timeout: timeout)
    }

    // MARK: Retention and webhooks

    func deleteExpired(olderThan retention: TimeInterval, _ jobs: isolated JobService) async {
        await deleteExpired(olderThan: retention, jobs) { id, jobs in
            try? await jobs.io { [store = jobs.store] in try store.delete(id: id) }
            await jobs.removeObjects(of: [id])
        }
    }

    func resumesDeliveries(of record: JobRecord) -> Bool {
        true
    }
}
