import Foundation
import JobStore
import MediaJobs
import MediadHTTP
@testable import Server
import Testing

@Suite struct JobQueryTests {
    /// 45 records, created a second apart except for pairs sharing a millisecond (ordered by id then),
    /// with states and kinds cycling independently.
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)
    static let records: [JobRecord] = (0..<45).map { index in
        record(
            kind: JobKind.allCases[(index / 5) % 5], state: JobState.allCases[index % 5],
            createdAt: epoch.addingTimeInterval(Double(index / 2 * 2) + 0.0004))
    }.shuffled()

    /// A record of `kind` with its default options (a remux writes Matroska).
    static func record(kind: JobKind = .remux, state: JobState = .queued, createdAt: Date) -> JobRecord {
        let options = try! kind.options(parsing: kind == .remux ? ["format": "mkv"] : [:])
        return JobRecord(id: JobStore.newID(), state: state, createdAt: createdAt, options: options, inputs: [])
    }

    static func newestFirst(_ records: [JobRecord]) -> [JobRecord] {
        records.sorted {
            ($0.createdAt, $0.id) > ($1.createdAt, $1.id)
        }
    }

    /// Every page of `query`, following cursors until there is none.
    static func allPages(_ records: [JobRecord], _ query: JobQuery) throws -> [JobPage] {
        var pages = [try JobPage.page(records, query)]
        while let cursor = pages.last?.nextCursor, pages.count < 20 {
            var next = query
            next.cursor = cursor
            pages.append(try JobPage.page(records, next))
        }
        return pages
    }

    @Test func pagesNewestFirstWithoutRepeats() throws {
        let pages = try Self.allPages(Self.records, JobQuery())
        #expect(pages.map(\.jobs.count) == [20, 20, 5])
        #expect(pages.map { $0.nextCursor == nil } == [false, false, true])
        let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        #expect(pages.compactMap(\.nextCursor).allSatisfy { $0.allSatisfy(urlSafe.contains) })
        let listed = pages.flatMap(\.jobs)
        #expect(listed.map(\.id) == Self.newestFirst(Self.records).map(\.id))
        #expect(Set(listed.map(\.id)).count == 45)
    }

    @Test func anExactlyFullLastPageHasNoCursor() throws {
        let pages = try Self.allPages(Array(Self.records.prefix(40)), JobQuery())
        #expect(pages.map(\.jobs.count) == [20, 20])
        #expect(pages.last?.nextCursor == nil)
    }

    @Test func filtersByStateAndKind() throws {
        let queued = try Self.allPages(Self.records, JobQuery(state: .queued, limit: 4)).flatMap(\.jobs)
        #expect(queued.map(\.id) == Self.newestFirst(Self.records.filter { $0.state == .queued }).map(\.id))
        #expect(queued.count == 9)

        let muxes = try JobPage.page(Self.records, JobQuery(kind: .mux, limit: 100))
        #expect(muxes.jobs.map(\.id) == Self.newestFirst(Self.records.filter { $0.kind == .mux }).map(\.id))
        #expect(muxes.nextCursor == nil)

        let both = try JobPage.page(Self.records, JobQuery(state: .failed, kind: .encode, limit: 100)).jobs
        #expect(!both.isEmpty && both.allSatisfy { $0.state == .failed && $0.kind == .encode })
        #expect(both.count == Self.records.filter { $0.state == .failed && $0.kind == .encode }.count)
    }

    @Test func changesBetweenRequestsDoNotRepeatOrSkip() throws {
        var records = Self.records
        let first = try JobPage.page(records, JobQuery())

        // Between the requests: a new job, one created among those already listed, one deleted from the rest.
        records.append(Self.record(createdAt: Self.epoch.addingTimeInterval(1000)))
        records.append(Self.record(createdAt: first.jobs[10].createdAt.addingTimeInterval(0.5)))
        let later = Self.newestFirst(Self.records).dropFirst(20)
        let deleted = later[later.startIndex + 3].id
        records.removeAll { $0.id == deleted }

        var rest: [JobRecord] = []
        var cursor = first.nextCursor
        while let next = cursor {
            let page = try JobPage.page(records, JobQuery(cursor: next))
            rest += page.jobs
            cursor = page.nextCursor
        }
        #expect(rest.map(\.id) == later.map(\.id).filter { $0 != deleted })
        #expect(Set(first.jobs.map(\.id)).isDisjoint(with: rest.map(\.id)))
    }

    @Test func refusesBadCursorsAndLimits() throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let bad = [
            "!!!", "abc", base64("no colon"), base64("x:" + JobStore.newID()), base64("123:../etc/passwd"),
            base64("123:"), String(repeating: "A", count: 500),
        ]
        for cursor in bad {
            let error = #expect(throws: ServiceError.self) { try JobPage.page(Self.records, JobQuery(cursor: cursor)) }
            #expect(error?.code == "invalid_cursor", "\(cursor)")
        }
        for limit in [0, -1, 101] {
            let error = #expect(throws: ServiceError.self) { try JobPage.page(Self.records, JobQuery(limit: limit)) }
            #expect(error?.code == "invalid_limit")
        }
        #expect(try JobPage.page(Self.records, JobQuery(limit: 100)).jobs.count == 45)
        #expect(try JobPage.page(Self.records, JobQuery(limit: 1)).jobs.count == 1)
    }

    @Test func encodesAsTheListResponse() throws {
        let page = try JobPage.page(Array(Self.records.prefix(2)), JobQuery())
        let json = String(decoding: try JobJSON.encoder().encode(page), as: UTF8.self)
        #expect(json.hasPrefix("{\"jobs\":[{"))
        #expect(json.hasSuffix(",\"next_cursor\":null}"))
    }
}
