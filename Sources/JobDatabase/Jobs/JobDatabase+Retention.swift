import Foundation
import PostgresNIO

/// Retention across replicas: one replica at a time deletes the jobs kept long enough.
extension JobDatabase {
    /// The key of the advisory lock a retention sweep holds ("mediad" and 2), so that of replicas sweeping
    /// at the same moment one deletes and the others skip that round.
    static let retentionLockKey: Int64 = 0x6D65_6469_6164_0002

    /// Deletes up to `limit` ended jobs (with their runs) that finished more than `retention` seconds ago by
    /// the database's clock, counting a record without `finished_at` from its creation as
    /// `Retention.expired` does; returns their ids, so that the caller removes their directories. Nil when
    /// another replica is sweeping now: the sweep runs in one transaction under the transaction-scoped
    /// advisory lock `retentionLockKey`, which a replica that dies mid-sweep releases with its connection.
    public func deleteExpired(olderThan retention: TimeInterval, limit: Int) async throws -> [String]? {
        do {
            return try await client.withTransaction(logger: logger) { connection -> [String]? in
                let locked =
                    try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(\(Self.retentionLockKey))", logger: logger
                    ).collect().first?.decode(Bool.self) ?? false
                guard locked else { return nil }
                var deleted: [String] = []
                let rows = try await connection.query(
                    """
                    DELETE FROM jobs WHERE id IN (
                        SELECT id FROM jobs
                        WHERE state IN ('succeeded', 'failed', 'cancelled')
                            AND coalesce((record->>'finished_at')::timestamptz, created_at)
                                < now() - \(retention) * interval '1 second'
                        ORDER BY created_at LIMIT \(limit)
                    )
                    RETURNING id
                    """, logger: logger)
                for try await id in rows.decode(String.self) { deleted.append(id) }
                return deleted
            }
        } catch {
            throw DatabaseError.query(error, "deleting the jobs past their retention")
        }
    }
}
