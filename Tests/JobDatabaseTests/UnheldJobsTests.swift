import Foundation
import JobDatabase
import JobStore
import MediaJobs
import Testing
import TestSupport

/// Writes to jobs no replica holds, and the look at what changed since the last one, on a real PostgreSQL.
@Suite(.postgres, .timeLimit(.minutes(5))) struct UnheldJobsTests {
    /// A queued job is cancelled without a claim; once a replica claims it, only the lease writes it.
    @Test func anUnheldSaveLosesToAClaim() async throws {
        try await PostgresSuite.withDatabase("unheld") { database in
            var first = DatabaseFixtures.record(offset: 1)
            var second = DatabaseFixtures.record(offset: 2)
            try await database.insert(first)
            try await database.insert(second)
            first.state = .cancelled
            #expect(try await database.saveUnheld(first, replica: "r1", ttl: 30))
            #expect(try await database.load(first.id)?.record.state == .cancelled)

            let claim = try #require(try await database.claim(replica: "r1", ttl: 30))
            #expect(claim.lease.jobID == second.id)
            second.state = .cancelled
            #expect(
                try await database.saveUnheld(second, replica: "r1", ttl: 30) == false,
                "the holder's job is not written")
            #expect(try await database.load(second.id)?.record.state == .running)
            #expect(
                try await database.saveUnheld(DatabaseFixtures.record(offset: 3), replica: "r1", ttl: 30) == false,
                "no such job")
        }
    }

    /// Every record at first, then only those written since the last look (by the database's clock).
    @Test func changedRecordsSinceTheLastLook() async throws {
        try await PostgresSuite.withDatabase("changes") { database in
            let records = (0..<3).map { DatabaseFixtures.record(offset: $0) }
            for record in records { try await database.insert(record) }
            let all = try await database.changed(since: nil)
            #expect(Set(all.records.map(\.id)) == Set(records.map(\.id)))
            let readAt = try #require(all.readAt)
            let none = try await database.changed(since: readAt)
            #expect(none.records.isEmpty && none.readAt == readAt)
            var changed = records[1]
            changed.state = .cancelled
            #expect(try await database.saveUnheld(changed, replica: "r1", ttl: 30))
            let after = try await database.changed(since: readAt)
            #expect(after.records.map(\.id) == [changed.id])
            #expect(after.records.first?.state == .cancelled)
        }
    }
}
