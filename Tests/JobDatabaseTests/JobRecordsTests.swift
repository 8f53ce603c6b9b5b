import Foundation
import JobDatabase
import JobStore
import MediaJobs
import Testing
import TestSupport

/// Job records on a real PostgreSQL: stored as written, listed newest first by keyset with every job on
/// exactly one page, and `NOTIFY` reaching listeners when a job is queued or changes.
@Suite(.postgres, .timeLimit(.minutes(5))) struct JobRecordsTests {
    /// The record's JSON, the form it is compared in (dates as the store writes them).
    func json(_ record: JobRecord?) throws -> String? {
        try record.map { String(decoding: try JobJSON.encoder().encode($0), as: UTF8.self) }
    }

    @Test func recordsReadBackAsWritten() async throws {
        try await PostgresSuite.withDatabase("records") { database in
            var record = DatabaseFixtures.record(offset: 7, owner: "alice")
            record.sourceName = "holiday.mov"
            record.warnings = ["a warning"]
            #expect(try await database.insert(record))
            #expect(try await database.insert(record) == false)
            let stored = try #require(try await database.load(record.id))
            #expect(try json(stored.record) == json(record))
            #expect(stored.holder == nil && stored.attempts == 0 && !stored.cancelRequested)
            #expect(try await database.load("missing") == nil)
            #expect(try await database.queueDepth() == 1)
        }
    }

    @Test func keysetPagesHoldEveryJobOnceInOrder() async throws {
        try await PostgresSuite.withDatabase("paging") { database in
            // Pairs of jobs share a millisecond, so the id breaks ties.
            var records: [JobRecord] = []
            for index in 0..<23 {
                var record = DatabaseFixtures.record(offset: index / 2, owner: index % 3 == 0 ? "alice" : "bob")
                if index % 4 == 0 { record.state = .succeeded }
                records.append(record)
                try await database.insert(record)
            }
            let newestFirst = records.sorted { JobListPosition(record: $0) > JobListPosition(record: $1) }
            for filter in [
                JobListFilter(), JobListFilter(owner: "alice"), JobListFilter(state: .succeeded),
                JobListFilter(state: .queued, owner: "bob"), JobListFilter(kind: .remux),
            ] {
                var listed: [String] = []
                var position: JobListPosition?
                var pages = 0
                repeat {
                    let page = try await database.list(filter, after: position, limit: 5)
                    #expect(page.records.count <= 5)
                    listed += page.records.map(\.id)
                    position = page.next
                    pages += 1
                } while position != nil && pages < 20
                let expected = newestFirst.filter {
                    (filter.state == nil || $0.state == filter.state)
                        && (filter.owner == nil || $0.owner == filter.owner)
                }
                #expect(listed == expected.map(\.id), "\(filter)")
                #expect(pages == max(1, (expected.count + 4) / 5), "\(filter)")
            }
            #expect(try await database.list(after: nil, limit: 0).records.isEmpty)
        }
    }

    @Test func listenersHearQueuedAndChangedJobs() async throws {
        try await PostgresSuite.withDatabase("notify") { database in
            let queued = try await database.listen(JobDatabase.queuedChannel)
            let changed = try await database.listen(JobDatabase.changedChannel)
            defer {
                queued.stop()
                changed.stop()
            }
            let record = DatabaseFixtures.record()
            try await database.insert(record)
            #expect(try await first(of: queued) == record.id)
            let claim = try #require(try await database.claim(replica: "a", ttl: 600))
            #expect(try await first(of: changed) == record.id)
            #expect(try await database.handBack(claim.lease))
            #expect(try await first(of: queued) == record.id)
        }
    }

    /// The next id the listener hears, or nil when none comes within a minute.
    func first(of listener: JobListener) async throws -> String? {
        try await PostgresSuite.next(listener)?.id
    }
}
