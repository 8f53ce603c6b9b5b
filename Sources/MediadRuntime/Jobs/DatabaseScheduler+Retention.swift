import Foundation
import JobDatabase
import JobStore
import Logging

/// Retention with a database: the expired rows, and the job directories no row names.
extension DatabaseScheduler {
    /// The most expired jobs one statement of a retention sweep deletes.
    static let retentionBatch = 500
    /// How often a replica looks for job directories no job names.
    static let orphanSweepInterval: TimeInterval = 600
    /// How long a job directory stays unchanged before a missing row makes it an orphan: far longer than
    /// the moment between a job's directory being made and its row being written.
    static let orphanAge: TimeInterval = 3600

    /// One replica at a time deletes the expired rows, in batches of `retentionBatch`, and removes the
    /// directories of those it deleted; the others forget them when the deletions' notifications arrive.
    /// Then, every `orphanSweepInterval`, the directories no job names are removed.
    func deleteExpired(olderThan retention: TimeInterval, _ jobs: isolated JobService) async {
        while true {
            guard
                let ids = try? await call(
                    jobs, { try await $0.deleteExpired(olderThan: retention, limit: Self.retentionBatch) }) ?? nil,
                !ids.isEmpty
            else { break }
            jobs.events.logger.info("deleted jobs past their retention", metadata: ["jobs": "\(ids.count)"])
            for id in ids { forget(id, jobs) }
            _ = try? await jobs.io { [store = jobs.store] in
                for id in ids { try? store.delete(id: id) }
            }
            await jobs.removeObjects(of: ids)
            if ids.count < Self.retentionBatch { break }
        }
        if Date().timeIntervalSince(orphansSweptAt) >= Self.orphanSweepInterval {
            await removeOrphanedDirectories(jobs)
        }
    }

    /// Removes the job directories unchanged for `orphanAge` that the database has no job of: those of a
    /// job whose publication got no answer and did not land (`JobService` keeps them, not knowing), or of
    /// expired jobs whose replica died between deleting their rows and their directories.
    private func removeOrphanedDirectories(_ jobs: isolated JobService) async {
        let cutoff = Date().addingTimeInterval(-Self.orphanAge)
        guard let candidates = try? await jobs.io({ [store = jobs.store] in try store.jobIDs(changedBefore: cutoff) })
        else { return }
        var orphans: [String] = []
        for batch in stride(from: 0, to: candidates.count, by: Self.retentionBatch) {
            let ids = Array(candidates[batch..<min(batch + Self.retentionBatch, candidates.count)])
            guard let known = try? await call(jobs, { try await $0.existing(ids) }) else { return }
            orphans += ids.filter { !known.contains($0) && jobs.running[$0] == nil }
        }
        orphansSweptAt = Date()
        guard !orphans.isEmpty else { return }
        jobs.events.logger.info(
            "removed job directories no job in the database names", metadata: ["directories": "\(orphans.count)"])
        _ = try? await jobs.io { [store = jobs.store, orphans] in
            for id in orphans { try? store.delete(id: id) }
        }
    }
}
