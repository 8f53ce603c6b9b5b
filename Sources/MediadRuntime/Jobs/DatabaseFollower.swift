import Foundation
import JobDatabase
import JobStore
import Logging

/// Keeps a replica's index current from the database: every record once at start, then each change as a
/// notification carries it (a job read again only when its row did not fit), and after a lost connection
/// the records written while it was down.
///
/// A queued-job notification starts a claim pass, so an idle replica takes a new job at once, without
/// polling. Belongs to a `DatabaseScheduler` and runs on its job service's actor.
final class DatabaseFollower {
    /// The tasks listening on the two channels.
    private var listening: [Task<Void, Never>] = []
    /// The database's time of the last look at the records written since the one before.
    private var lookedAt: Date?
    private var lastLook = Date.distantPast

    /// How far back a look reaches before the last one: a row's `updated_at` is its transaction's start,
    /// and the transaction may commit a little later.
    static let overlap: TimeInterval = 10

    /// Listens on both channels, then loads every record into the index (in that order, so that nothing
    /// written in between is missed). Throws when the database cannot be read.
    func start(_ scheduler: DatabaseScheduler, _ jobs: isolated JobService) async throws {
        let queued = try await scheduler.call(jobs) { try await $0.listen(JobDatabase.queuedChannel) }
        let changed = try await scheduler.call(jobs) { try await $0.listen(JobDatabase.changedChannel) }
        let (records, readAt) = try await scheduler.call(jobs) { try await $0.changed(since: nil) }
        for record in records { jobs.records[record.id] = record }
        lookedAt = readAt
        lastLook = Date()
        listening = [
            Task { await self.follow(JobDatabase.queuedChannel, queued, scheduler, jobs) },
            Task { await self.follow(JobDatabase.changedChannel, changed, scheduler, jobs) },
        ]
    }

    /// Stops listening.
    func stop() {
        for task in listening { task.cancel() }
    }

    /// Acts on the notifications of `channel` until cancelled; a lost connection is listened on again with
    /// backoff, and what was written meanwhile is read at once.
    private func follow(
        _ channel: String, _ first: JobListener, _ scheduler: DatabaseScheduler, _ jobs: isolated JobService
    ) async {
        var listener: JobListener? = first
        var backoff = 0.25
        while !Task.isCancelled {
            guard let current = listener else {
                listener = try? await scheduler.call(jobs) { try await $0.listen(channel) }
                if listener == nil {
                    try? await Task.sleep(for: .milliseconds(Int(backoff * 1000)))
                    backoff = min(backoff * 2, 5)
                } else {
                    backoff = 0.25
                    await catchUp(scheduler, jobs, atMostEvery: 0)
                    scheduler.startNext(jobs)
                }
                continue
            }
            do {
                for try await payload in current.payloads {
                    if channel == JobDatabase.queuedChannel {
                        scheduler.startNext(jobs)
                    } else {
                        await scheduler.changed(JobChange(payload: payload), jobs)
                    }
                }
            } catch {
                jobs.events.logger.warning(
                    "lost the database's notifications; listening again",
                    metadata: ["channel": .string(channel), "error": .string("\(error)")])
            }
            current.stop()
            listener = nil
        }
        listener?.stop()
    }

    /// Reads the records written since the last look into the index, unless the last look was less than
    /// `interval` seconds ago.
    func catchUp(_ scheduler: DatabaseScheduler, _ jobs: isolated JobService, atMostEvery interval: TimeInterval)
        async
    {
        guard Date().timeIntervalSince(lastLook) >= interval else { return }
        lastLook = Date()
        let since = lookedAt.map { $0.addingTimeInterval(-Self.overlap) }
        guard let (records, readAt) = try? await scheduler.call(jobs, { try await $0.changed(since: since) }) else {
            return
        }
        lookedAt = readAt ?? lookedAt
        for record in records { scheduler.remember(record, jobs) }
    }
}
