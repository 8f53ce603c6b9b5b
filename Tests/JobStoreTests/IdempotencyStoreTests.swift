import Foundation
import JobStore
import TestSupport
import Testing

/// The store's `Idempotency-Key` mappings: one winner per key, expiry after the lifetime or with the job.
@Suite struct IdempotencyStoreTests {
    let day: TimeInterval = 86400

    func entry(_ job: JobRecord, at date: Date) -> IdempotencyEntry {
        IdempotencyEntry(
            jobID: job.id, createdAt: date, options: job.options, callbackURL: nil,
            inputs: ["file": "abc"])
    }

    @Test func theFirstClaimWinsUntilItExpires() throws {
        let scratch = try Scratch("idempotency")
        let store = try JobStore(root: scratch.path)
        let first = try StoreFixtures.storedJob(in: store)
        let second = try StoreFixtures.storedJob(in: store)
        let digest = JobStore.idempotencyDigest(owner: "", key: "k")
        let now = StoreFixtures.epoch
        #expect(try store.claimIdempotencyKey(digest, entry(first, at: now), lifetime: day, now: now) == .claimed)
        let taken = try store.claimIdempotencyKey(digest, entry(second, at: now), lifetime: day, now: now)
        #expect(taken == .taken(entry(first, at: now)))
        #expect(store.idempotencyEntry(digest, lifetime: day, now: now)?.jobID == first.id)

        let later = now.addingTimeInterval(day + 1)
        #expect(store.idempotencyEntry(digest, lifetime: day, now: later) == nil)
        #expect(try store.claimIdempotencyKey(digest, entry(second, at: later), lifetime: day, now: later) == .claimed)
        #expect(store.idempotencyEntry(digest, lifetime: day, now: later)?.jobID == second.id)
        #expect(try StoreFixtures.listing(store.idempotencyDirectory) == [digest + ".json"])
    }

    @Test func aDeletedJobFreesTheKeyAndTheSweepRemovesDeadEntries() throws {
        let scratch = try Scratch("idempotency")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        let kept = try StoreFixtures.storedJob(in: store)
        let now = StoreFixtures.epoch
        let gone = JobStore.idempotencyDigest(owner: "alice", key: "k")
        let live = JobStore.idempotencyDigest(owner: "bob", key: "k")
        #expect(gone != live)
        #expect(try store.claimIdempotencyKey(gone, entry(job, at: now), lifetime: day, now: now) == .claimed)
        #expect(try store.claimIdempotencyKey(live, entry(kept, at: now), lifetime: day, now: now) == .claimed)
        try store.delete(id: job.id)
        #expect(store.idempotencyEntry(gone, lifetime: day, now: now) == nil)
        #expect(try store.sweepIdempotencyKeys(lifetime: day, now: now) == 1)
        #expect(try StoreFixtures.listing(store.idempotencyDirectory) == [live + ".json"])
        #expect(try store.sweepIdempotencyKeys(lifetime: day, now: now.addingTimeInterval(2 * day)) == 1)
        #expect(try StoreFixtures.listing(store.idempotencyDirectory).isEmpty)
    }

    @Test func concurrentClaimsHaveOneWinner() async throws {
        let scratch = try Scratch("idempotency")
        let store = try JobStore(root: scratch.path)
        let jobs = try (0..<16).map { _ in try StoreFixtures.storedJob(in: store) }
        let digest = JobStore.idempotencyDigest(owner: "", key: "race")
        let now = StoreFixtures.epoch
        let entries = jobs.map { entry($0, at: now) }
        let results = try await withThrowingTaskGroup(of: JobStore.IdempotencyClaim.self) { group in
            for item in entries {
                group.addTask { try store.claimIdempotencyKey(digest, item, lifetime: 86400, now: now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == .claimed }.count == 1)
        let winner = try #require(store.idempotencyEntry(digest, lifetime: day, now: now))
        #expect(results.allSatisfy { $0 == .claimed || $0 == .taken(winner) })
    }
}
