import Foundation

/// Which finished jobs have been kept long enough and may be deleted with their files.
public enum Retention {
    /// Ids of the terminal (`succeeded`, `failed`, `cancelled`) jobs that finished before `now − olderThan`.
    /// A terminal record without `finished_at` counts from `created_at`, so it cannot be kept forever.
    /// Queued and running jobs are never expired.
    public static func expired(_ records: [JobRecord], olderThan retention: TimeInterval, now: Date) -> [String] {
        let cutoff = now.addingTimeInterval(-retention)
        return
            records
            .filter { $0.state.isTerminal && ($0.finishedAt ?? $0.createdAt) < cutoff }
            .map(\.id)
    }
}
