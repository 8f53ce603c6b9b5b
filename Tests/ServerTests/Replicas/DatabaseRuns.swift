import Foundation
import TestSupport

/// The `runs` table of a `--database` cluster, read with psql, as `RunLog`s by job id, so that the shared
/// store's checks (no two runs of a job overlap, one run ends the job) apply to it.
extension RunLog {
    /// The runs of every job: `SELECT job_id, attempt, replica, started_at, ended_at, outcome FROM runs`,
    /// the times as seconds since the epoch by the database's clock (the test's, on this machine).
    static func database(_ postgres: PostgresServer) throws -> [String: RunLog] {
        let rows = try postgres.psql(
            "SELECT job_id, attempt, replica, extract(epoch FROM started_at), extract(epoch FROM ended_at), "
                + "coalesce(outcome, '') FROM runs ORDER BY job_id, attempt", database: "mediad")
        var logs: [String: RunLog] = [:]
        for line in rows.split(separator: "\n") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard columns.count == 6, let attempt = Int(columns[1]), let start = Double(columns[3]) else {
                logs["unparsable", default: RunLog()].runs.append(
                    Run(replica: "unparsable: \(line)", attempt: 0, start: .distantFuture))
                continue
            }
            let run = Run(
                replica: columns[2], attempt: attempt, start: Date(timeIntervalSince1970: start),
                end: Double(columns[4]).map { Date(timeIntervalSince1970: $0) },
                outcome: columns[5].isEmpty ? nil : columns[5])
            logs[columns[0], default: RunLog()].runs.append(run)
        }
        return logs
    }

    /// An empty log, filled by `database`.
    private init() {}
}
