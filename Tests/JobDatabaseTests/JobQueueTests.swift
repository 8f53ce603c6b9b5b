import Foundation
import JobDatabase
import JobStore
import Testing
import TestSupport

/// The queue and leases on a real PostgreSQL: claims are exclusive, writes are fenced by the attempt,
/// expired leases are taken back (three runs, then `interrupted`), and lease times are the database's.
@Suite(.postgres, .timeLimit(.minutes(5))) struct JobQueueTests {
    @Test func concurrentClaimersTakeEveryJobExactlyOnce() async throws {
        try await PostgresSuite.withDatabase("claims") { database in
            let ids = (0..<50).map { _ in JobStore.newID() }
            for (offset, id) in ids.enumerated() {
                try await database.insert(DatabaseFixtures.record(id: id, offset: offset))
            }
            let claims = try await withThrowingTaskGroup(of: [JobClaim].self) { group in
                for replica in 0..<8 {
                    group.addTask {
                        var mine: [JobClaim] = []
                        while let claim = try await database.claim(replica: "replica-\(replica)", ttl: 600) {
                            mine.append(claim)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(claims.map(\.lease.jobID).sorted() == ids.sorted())
            #expect(
                claims.allSatisfy { $0.lease.attempt == 1 && $0.record.state == .running && $0.record.attempts == 1 })
            #expect(claims.allSatisfy { $0.record.replica == $0.lease.holder && $0.record.startedAt != nil })
            #expect(try await database.queueDepth() == 0)
            #expect(try await database.claim(replica: "late", ttl: 600) == nil)
            let runs = try await database.runs(of: ids[0])
            #expect(runs.count == 1 && runs.first?.attempt == 1 && runs.first?.endedAt == nil)
        }
    }

    @Test func theOldestQueuedJobIsClaimedFirst() async throws {
        try await PostgresSuite.withDatabase("order") { database in
            let newer = DatabaseFixtures.record(offset: 10)
            let older = DatabaseFixtures.record(offset: 5)
            try await database.insert(newer)
            try await database.insert(older)
            #expect(try await database.claim(replica: "a", ttl: 600)?.lease.jobID == older.id)
            #expect(try await database.claim(replica: "a", ttl: 600)?.lease.jobID == newer.id)
        }
    }

    @Test func aLateHolderCannotWriteAfterAnotherClaim() async throws {
        try await PostgresSuite.withDatabase("fencing") { database in
            let record = DatabaseFixtures.record()
            try await database.insert(record)
            let first = try #require(try await database.claim(replica: "stalled", ttl: 1))
            #expect(
                try await DatabaseFixtures.eventually {
                    try await !database.reclaimExpired(by: "reclaimer", ttl: 30).isEmpty
                })
            let second = try #require(try await database.claim(replica: "taker", ttl: 600))
            #expect(second.lease.attempt == first.lease.attempt + 1)
            var late = first.record
            late.state = .succeeded
            late.progress = 1
            #expect(try await database.save(late, lease: first.lease) == false)
            #expect(try await database.renew(first.lease, ttl: 600, progress: 0.5) == nil)
            #expect(try await database.release(first.lease, record: late, outcome: "succeeded", ttl: 30) == false)
            #expect(try await database.handBack(first.lease) == false)
            let stored = try #require(try await database.load(record.id))
            #expect(stored.record.state == .running)
            #expect(stored.holder == "taker" && stored.attempts == 2)
            #expect(stored.record.replica == "taker")
            var current = second.record
            current.warnings = ["written by the holder"]
            #expect(try await database.save(current, lease: second.lease))
            #expect(try await database.load(record.id)?.record.warnings == ["written by the holder"])
        }
    }

    /// The attempt is the token: a replica that stalled and then claimed the same job again (its id the
    /// same) cannot write with its old lease.
    @Test func theAttemptFencesTheSameReplicasOldLease() async throws {
        try await PostgresSuite.withDatabase("attempt") { database in
            try await database.insert(DatabaseFixtures.record())
            let old = try #require(try await database.claim(replica: "same", ttl: 1))
            #expect(
                try await DatabaseFixtures.eventually {
                    try await !database.reclaimExpired(by: "reclaimer", ttl: 30).isEmpty
                })
            let new = try #require(try await database.claim(replica: "same", ttl: 600))
            #expect(new.lease.holder == old.lease.holder && new.lease.attempt == 2)
            var late = old.record
            late.state = .failed
            #expect(try await database.save(late, lease: old.lease) == false)
            #expect(try await database.renew(old.lease, ttl: 600, progress: 0.9) == nil)
            #expect(try await database.release(old.lease, record: late, outcome: "failed", ttl: 30) == false)
            let stored = try #require(try await database.load(new.lease.jobID))
            #expect(stored.record.state == .running && stored.attempts == 2 && stored.record.progress == 0)
            #expect(try await database.renew(new.lease, ttl: 600, progress: 0.5) != nil)
        }
    }

    @Test func expiredLeasesAreRunAgainThenInterrupted() async throws {
        try await PostgresSuite.withDatabase("expiry") { database in
            let record = DatabaseFixtures.record()
            try await database.insert(record)
            var recovered: [JobRecord] = []
            for attempt in 1...JobDatabase.maxAttempts {
                let claim = try #require(try await database.claim(replica: "dies-\(attempt)", ttl: 1))
                #expect(claim.lease.attempt == attempt)
                #expect(
                    try await DatabaseFixtures.eventually {
                        recovered = try await database.reclaimExpired(by: "reclaimer", ttl: 30)
                        return !recovered.isEmpty
                    })
                #expect(recovered.map(\.id) == [record.id])
            }
            let last = try #require(recovered.first)
            #expect(last.state == .failed)
            #expect(last.error?.code == "interrupted")
            #expect(last.attempts == 3)
            let stored = try #require(try await database.load(record.id))
            #expect(stored.record.state == .failed && stored.record.error?.code == "interrupted")
            #expect(stored.holder == nil && stored.leaseExpiresAt == nil)
            #expect(try await database.claim(replica: "late", ttl: 600) == nil)
            let runs = try await database.runs(of: record.id)
            #expect(runs.map(\.attempt) == [1, 2, 3])
            #expect(runs.map(\.replica) == ["dies-1", "dies-2", "dies-3"])
            #expect(runs.allSatisfy { $0.endedAt == nil })
        }
    }

    @Test func leasesRunOnTheDatabaseClock() async throws {
        try await PostgresSuite.withDatabase("clock") { database in
            try await database.insert(DatabaseFixtures.record())
            let claim = try #require(try await database.claim(replica: "a", ttl: 3600))
            // The run's start is the database's now() of the claim: the lease is exactly the TTL after it.
            let run = try #require(try await database.runs(of: claim.lease.jobID).first)
            #expect(abs(claim.lease.expiresAt.timeIntervalSince(run.startedAt) - 3600) < 0.001)
            #expect(try await database.reclaimExpired(by: "reclaimer", ttl: 30).isEmpty)
            let renewal = try #require(try await database.renew(claim.lease, ttl: 7200, progress: 0.25))
            #expect(renewal.expiresAt > claim.lease.expiresAt)
            #expect(try await database.load(claim.lease.jobID)?.record.progress == 0.25)
        }
    }

    @Test func aDrainingReplicaHandsJobsBack() async throws {
        try await PostgresSuite.withDatabase("handback") { database in
            let record = DatabaseFixtures.record()
            try await database.insert(record)
            let first = try #require(try await database.claim(replica: "draining", ttl: 600))
            #expect(try await database.handBack(first.lease))
            let queued = try #require(try await database.load(record.id))
            #expect(queued.record.state == .queued && queued.record.startedAt == nil && queued.holder == nil)
            #expect(try await database.queueDepth() == 1)
            let second = try #require(try await database.claim(replica: "other", ttl: 600))
            #expect(second.lease.attempt == 2)
            #expect(try await database.runs(of: record.id).map(\.outcome) == ["requeued", nil])
        }
    }

    @Test func cancelRequestsReachTheHolder() async throws {
        try await PostgresSuite.withDatabase("cancel") { database in
            let running = DatabaseFixtures.record(offset: 0)
            let queued = DatabaseFixtures.record(offset: 1)
            try await database.insert(running)
            try await database.insert(queued)
            let claim = try #require(try await database.claim(running.id, replica: "holder", ttl: 600))
            #expect(try await database.renew(claim.lease, ttl: 600, progress: 0)?.cancelRequested == false)
            #expect(try await database.requestCancel(running.id)?.cancelRequested == true)
            #expect(try await database.renew(claim.lease, ttl: 600, progress: 0)?.cancelRequested == true)
            var cancelled = claim.record
            cancelled.state = .cancelled
            #expect(try await database.release(claim.lease, record: cancelled, outcome: "cancelled", ttl: 30))
            let ended = try #require(try await database.load(running.id))
            #expect(ended.record.state == .cancelled && !ended.cancelRequested && ended.holder == nil)
            #expect(try await database.runs(of: running.id).first?.outcome == "cancelled")
            #expect(try await database.requestCancel(running.id)?.cancelRequested == false)

            #expect(try await database.requestCancel(queued.id)?.cancelRequested == true)
            #expect(try await database.claim(replica: "holder", ttl: 600)?.cancelRequested == true)
            #expect(try await database.requestCancel("missing") == nil)
        }
    }

    @Test func aJobUnderALiveLeaseIsNotDeleted() async throws {
        try await PostgresSuite.withDatabase("delete") { database in
            let record = DatabaseFixtures.record()
            try await database.insert(record)
            let claim = try #require(try await database.claim(replica: "holder", ttl: 600))
            #expect(try await database.delete(record.id) == .leased)
            var done = claim.record
            done.state = .succeeded
            #expect(try await database.release(claim.lease, record: done, outcome: "succeeded", ttl: 30))
            #expect(try await database.delete(record.id) == .deleted)
            #expect(try await database.delete(record.id) == .notFound)
            #expect(try await database.runs(of: record.id).isEmpty)
        }
    }
}
