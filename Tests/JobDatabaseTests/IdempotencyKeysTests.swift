import Foundation
import JobDatabase
import JobStore
import MediaJobs
import Testing
import TestSupport

/// `Idempotency-Key` mappings in `idempotency_keys` on a real PostgreSQL: a claim stores the job with its
/// key or, when a live key holds the digest, nothing; a key dies with its lifetime (by the database's clock,
/// here moved back with psql rather than waited for) or its job; racing claims have one winner.
@Suite(.postgres, .timeLimit(.minutes(5))) struct IdempotencyKeysTests {
    static let lifetime: TimeInterval = 3600

    /// A new queued job and what its request asked for, `options` telling requests apart; made now, in
    /// whole seconds, so the entry reads back equal (the JSON holds milliseconds).
    static func request(format: String = "mkv") -> (JobRecord, IdempotencyEntry) {
        var record = DatabaseFixtures.record()
        record.options = try! JobKind.remux.options(parsing: ["format": format])
        let entry = IdempotencyEntry(
            jobID: record.id, createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
            options: record.options, callbackURL: nil,
            inputs: ["file": String(repeating: "ab", count: 32)])
        return (record, entry)
    }

    static func claim(_ database: JobDatabase, _ digest: String, _ request: (JobRecord, IdempotencyEntry))
        async throws -> JobStore.IdempotencyClaim
    {
        try await database.insert(request.0, claiming: digest, request.1, lifetime: lifetime)
    }

    /// Moves the key's creation `seconds` back, as if it was made that long ago.
    static func age(_ database: JobDatabase, _ digest: String, by seconds: Int) throws {
        _ = try PostgresSuite.current().psql(
            "UPDATE idempotency_keys SET created_at = created_at - interval '\(seconds) seconds' "
                + "WHERE digest = '\(digest)'", database: database.settings.database)
    }

    static func count(_ database: JobDatabase, _ table: String) throws -> Int {
        Int(try PostgresSuite.current().psql("SELECT count(*) FROM \(table)", database: database.settings.database))
            ?? -1
    }

    @Test func aClaimStoresTheJobAndARepeatGetsIt() async throws {
        try await PostgresSuite.withDatabase("keys") { database throws in
            let digest = JobStore.idempotencyDigest(owner: "alice", key: "build-41")
            let first = Self.request()
            #expect(try await Self.claim(database, digest, first) == .claimed)
            #expect(try await database.load(first.0.id)?.record.state == .queued)
            #expect(try await database.idempotencyEntry(digest, lifetime: Self.lifetime) == first.1)
            #expect(try await database.queueDepth() == 1)

            // A repeat, or a different request with the key: the first entry, and no second job.
            for format in ["mkv", "mov"] {
                let again = Self.request(format: format)
                #expect(try await Self.claim(database, digest, again) == .taken(first.1))
                #expect(try await database.load(again.0.id) == nil)
            }
            #expect(try Self.count(database, "jobs") == 1)
            // Another owner's same key is another digest.
            let other = JobStore.idempotencyDigest(owner: "bob", key: "build-41")
            #expect(try await Self.claim(database, other, Self.request()) == .claimed)
            #expect(try await database.idempotencyEntry("absent", lifetime: Self.lifetime) == nil)
        }
    }

    @Test func anExpiredKeyIsReplaced() async throws {
        try await PostgresSuite.withDatabase("expired") { database in
            let first = Self.request()
            #expect(try await Self.claim(database, "d", first) == .claimed)
            try Self.age(database, "d", by: Int(Self.lifetime) - 60)
            #expect(try await database.idempotencyEntry("d", lifetime: Self.lifetime) == first.1)
            try Self.age(database, "d", by: 120)
            #expect(try await database.idempotencyEntry("d", lifetime: Self.lifetime) == nil)
            let second = Self.request(format: "mov")
            #expect(try await Self.claim(database, "d", second) == .claimed)
            #expect(try await database.idempotencyEntry("d", lifetime: Self.lifetime) == second.1)
            // The old job stays; the key is the new one's, live for a whole lifetime again.
            #expect(try await database.load(first.0.id) != nil)
            #expect(try await Self.claim(database, "d", Self.request()) == .taken(second.1))
        }
    }

    @Test func aDeletedJobFreesItsKey() async throws {
        try await PostgresSuite.withDatabase("deleted") { database throws in
            let first = Self.request()
            #expect(try await Self.claim(database, "d", first) == .claimed)
            #expect(try await database.delete(first.0.id) == .deleted)
            #expect(try await database.idempotencyEntry("d", lifetime: Self.lifetime) == nil)
            #expect(try Self.count(database, "idempotency_keys") == 0)
            let second = Self.request()
            #expect(try await Self.claim(database, "d", second) == .claimed)
            #expect(try await database.idempotencyEntry("d", lifetime: Self.lifetime) == second.1)
        }
    }

    /// Many claims of one digest at once, on a free key and on an expired one: exactly one stores its job,
    /// every other gets the winner's entry.
    @Test func racingClaimsHaveOneWinner() async throws {
        try await PostgresSuite.withDatabase("race") { database in
            for round in 0..<10 {
                let digest = "race-\(round)"
                var previous: JobRecord?
                if round % 2 == 1 {
                    // An expired key the racers all find dead.
                    let old = Self.request()
                    #expect(try await Self.claim(database, digest, old) == .claimed)
                    try Self.age(database, digest, by: Int(Self.lifetime) + 60)
                    previous = old.0
                }
                let requests = (0..<12).map { _ in Self.request() }
                let claims = try await withThrowingTaskGroup(of: (String, JobStore.IdempotencyClaim).self) { group in
                    for request in requests {
                        group.addTask { (request.0.id, try await Self.claim(database, digest, request)) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let winners = claims.filter { $0.1 == .claimed }.map(\.0)
                try #require(winners.count == 1, "round \(round): \(claims)")
                let winner = try #require(requests.first { $0.0.id == winners[0] })
                #expect(claims.allSatisfy { $0.1 == .claimed || $0.1 == .taken(winner.1) }, "round \(round)")
                for request in requests {
                    let stored = try await database.load(request.0.id)
                    #expect((stored != nil) == (request.0.id == winner.0.id), "round \(round)")
                }
                if let previous { #expect(try await database.load(previous.id) != nil) }
            }
        }
    }

    @Test func theSweepDeletesTheDeadKeysInOneStatement() async throws {
        try await PostgresSuite.withDatabase("sweep") { database in
            var live: [String: IdempotencyEntry] = [:]
            for index in 0..<6 {
                let request = Self.request()
                #expect(try await Self.claim(database, "k\(index)", request) == .claimed)
                if index % 2 == 0 {
                    try Self.age(database, "k\(index)", by: Int(Self.lifetime) + 1)
                } else {
                    live["k\(index)"] = request.1
                }
            }
            #expect(try await database.sweepIdempotencyKeys(lifetime: Self.lifetime) == 3)
            #expect(try await database.sweepIdempotencyKeys(lifetime: Self.lifetime) == 0)
            #expect(try Self.count(database, "idempotency_keys") == 3)
            for (digest, entry) in live {
                #expect(try await database.idempotencyEntry(digest, lifetime: Self.lifetime) == entry)
            }
            // The jobs stay: only their keys went.
            #expect(try Self.count(database, "jobs") == 6)
        }
    }
}
