import Foundation
import JobDatabase
import JobStore
import Testing
import TestSupport

/// The change notifications on a real PostgreSQL: they carry the row and the replica that wrote it, or the
/// id alone when the row is too long for a notification or the job was deleted.
@Suite(.postgres, .timeLimit(.minutes(5))) struct JobChangeTests {
    @Test func aChangeCarriesTheRowAndItsWriter() async throws {
        var settings = try PostgresSuite.database("change")
        settings.replica = "r7"
        let database = try await JobDatabase.open(settings, logger: PostgresSuite.quiet)
        do {
            try await check(database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    private func check(_ database: JobDatabase) async throws {
        let changed = try await database.listen(JobDatabase.changedChannel)
        defer { changed.stop() }
        var record = DatabaseFixtures.record()
        try await database.insert(record)
        let claim = try #require(try await database.claim(replica: "a", ttl: 600))

        let claimed = try #require(try await PostgresSuite.next(changed))
        #expect(claimed.id == record.id)
        #expect(claimed.writer == "r7", "the connection's replica, not the lease's holder")
        let row = try #require(claimed.stored)
        #expect(row.record.state == .running && row.holder == "a" && row.attempts == 1)
        let expires = try #require(row.leaseExpiresAt)
        #expect(abs(expires.timeIntervalSince(claim.lease.expiresAt)) < 0.001)
        #expect(row.cancelRequested == false)

        record = claim.record
        record.warnings = [String(repeating: "w", count: 9000)]
        #expect(try await database.save(record, lease: claim.lease))
        let long = try #require(try await PostgresSuite.next(changed))
        #expect(long.id == record.id && long.stored == nil && long.writer == nil, "too long: the id alone")
    }
}
