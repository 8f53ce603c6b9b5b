import Foundation
import JobDatabase
import JobStore
import PostgresNIO
import Testing
import TestSupport

/// Retention across replicas on a real PostgreSQL: which jobs a sweep deletes, and that a sweep under way
/// on one replica makes another skip its round.
@Suite(.postgres, .timeLimit(.minutes(5))) struct RetentionSweepTests {
    /// Ended jobs past the retention go (a record without `finished_at` counting from its creation); recent
    /// ones, queued and running ones stay, however old; the batch limit holds.
    @Test func onlyEndedJobsPastTheRetentionAreDeleted() async throws {
        try await PostgresSuite.withDatabase("retention") { database in
            let hourAgo = Date().addingTimeInterval(-3600)
            var endedLongAgo = DatabaseFixtures.record(offset: 1, state: .succeeded)
            endedLongAgo.finishedAt = hourAgo
            var endedLongAgoToo = DatabaseFixtures.record(offset: 2, state: .failed)
            endedLongAgoToo.finishedAt = hourAgo
            let endedWithoutTime = DatabaseFixtures.record(offset: 3, state: .cancelled)
            var endedNow = DatabaseFixtures.record(offset: 4, state: .succeeded)
            endedNow.finishedAt = Date()
            let queued = DatabaseFixtures.record(offset: 5)
            let running = DatabaseFixtures.record(offset: 6)
            for record in [endedLongAgo, endedLongAgoToo, endedWithoutTime, endedNow, queued, running] {
                try await database.insert(record)
            }
            _ = try #require(try await database.claim(replica: "r1", ttl: 30))

            let first = try #require(try await database.deleteExpired(olderThan: 60, limit: 2))
            #expect(Set(first) == [endedLongAgo.id, endedLongAgoToo.id], "the oldest first, at most the limit")
            let second = try #require(try await database.deleteExpired(olderThan: 60, limit: 2))
            #expect(second == [endedWithoutTime.id])
            #expect(try await database.deleteExpired(olderThan: 60, limit: 2) == [])
            let left = try await database.changed(since: nil).records.map(\.id)
            #expect(Set(left) == [endedNow.id, queued.id, running.id])
        }
    }

    /// While another session holds the retention lock (a replica sweeping), a sweep deletes nothing and
    /// says so; once the lock is released it deletes.
    @Test func aSweepUnderWayElsewhereIsSkipped() async throws {
        let settings = try PostgresSuite.database("retention_lock")
        let database = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
        do {
            try await sweepWhileLocked(database, settings)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    private func sweepWhileLocked(_ database: JobDatabase, _ settings: DatabaseSettings) async throws {
        var ended = DatabaseFixtures.record(offset: 1, state: .succeeded)
        ended.finishedAt = Date().addingTimeInterval(-3600)
        try await database.insert(ended)

        let other = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: PostgresSuite.quiet)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await other.run() }
            try await other.withConnection { connection in
                try await connection.query(
                    "SELECT pg_advisory_lock(\(Self.retentionLockKey))", logger: PostgresSuite.quiet)
                #expect(try await database.deleteExpired(olderThan: 60, limit: 10) == nil)
                try await connection.query(
                    "SELECT pg_advisory_unlock(\(Self.retentionLockKey))", logger: PostgresSuite.quiet)
            }
            #expect(try await database.deleteExpired(olderThan: 60, limit: 10) == [ended.id])
            group.cancelAll()
        }
    }

    /// The advisory lock key a retention sweep takes: "mediad" and 2.
    static let retentionLockKey: Int64 = 0x6D65_6469_6164_0002
}
