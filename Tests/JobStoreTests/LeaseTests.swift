import Foundation
import JobStore
import Synchronization
import TestSupport
import Testing

/// Leases of a shared store: one winner per generation, takeover only after expiry, a holder that was
/// taken over cannot renew or release, cancel requests and the runs file.
@Suite struct LeaseTests {
    static let now = Date()

    @Test func theFirstClaimWinsAndOthersSeeItHeld() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        #expect(try store.currentLease(id: job.id) == nil)
        guard case .claimed(let lease) = try store.claim(id: job.id, replica: "a", ttl: 30, now: Self.now) else {
            Issue.record("the first claim failed")
            return
        }
        #expect(lease.generation == 1 && lease.replica == "a")
        // Expiries are stored to the millisecond: compare who holds which generation.
        #expect(try store.currentLease(id: job.id).map { ($0.generation, $0.replica) } ?? (0, "") == (1, "a"))
        guard case .held(let seen) = try store.claim(id: job.id, replica: "b", ttl: 30, now: Self.now + 29) else {
            Issue.record("a live lease was not respected")
            return
        }
        #expect(seen.generation == 1 && seen.replica == "a")
        // Hidden temporaries are gone: only the record, inputs, outputs and the lease remain.
        #expect(
            try StoreFixtures.listing(store.jobDirectory(id: job.id)) == ["inputs", "job.json", "lease.1", "outputs"])
    }

    /// Many threads claim one job at once: exactly one wins.
    @Test func concurrentClaimsHaveOneWinner() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        let winners = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            if case .claimed = try? store.claim(id: job.id, replica: "r\(index)", ttl: 30) {
                winners.add(1, ordering: .relaxed)
            }
        }
        #expect(winners.load(ordering: .relaxed) == 1)
        #expect(try store.currentLease(id: job.id)?.generation == 1)
    }

    /// Many threads take over one expired lease at once: exactly one gets the next generation.
    @Test func concurrentTakeoversHaveOneWinner() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        _ = try store.claim(id: job.id, replica: "dead", ttl: 1, now: Self.now)
        let winners = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            if case .claimed = try? store.claim(id: job.id, replica: "r\(index)", ttl: 30, now: Self.now + 5) {
                winners.add(1, ordering: .relaxed)
            }
        }
        #expect(winners.load(ordering: .relaxed) == 1)
        let current = try #require(try store.currentLease(id: job.id))
        #expect(current.generation == 2 && current.replica != "dead")
    }

    @Test func anExpiredLeaseIsTakenOverAndTheOldHolderLosesIt() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        guard case .claimed(let old) = try store.claim(id: job.id, replica: "a", ttl: 5, now: Self.now) else {
            Issue.record("no claim")
            return
        }
        #expect(try store.renew(old, id: job.id, ttl: 5, progress: 0.5, now: Self.now + 1)?.progress == 0.5)
        guard case .claimed(let new) = try store.claim(id: job.id, replica: "b", ttl: 5, now: Self.now + 7) else {
            Issue.record("no takeover")
            return
        }
        #expect(new.generation == 2 && new.replica == "b")
        #expect(try store.renew(old, id: job.id, ttl: 5, progress: 0.9, now: Self.now + 8) == nil)
        #expect(!store.holds(old, id: job.id) && store.holds(new, id: job.id))
        try store.release(old, id: job.id)
        #expect(
            try store.currentLease(id: job.id)?.isLive(at: Self.now + 8) == true,
            "a former holder cannot release the new lease")
        try store.release(new, id: job.id)
        #expect(try store.currentLease(id: job.id)?.isLive(at: Self.now) == false)
        guard case .claimed(let third) = try store.claim(id: job.id, replica: "c", ttl: 5, now: Self.now + 8) else {
            Issue.record("a released lease is not claimable")
            return
        }
        #expect(third.generation == 3)
        #expect(
            try StoreFixtures.listing(store.jobDirectory(id: job.id)).filter { $0.hasPrefix("lease") } == ["lease.3"])
    }

    @Test func aGoneJobCannotBeClaimed() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        try store.delete(id: job.id)
        #expect(try store.claim(id: job.id, replica: "a", ttl: 5) == .gone)
        #expect(throws: StoreError.self) { try store.requestCancel(id: job.id) }
    }

    @Test func cancelRequestsAndRunsAreRecorded() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let job = try StoreFixtures.storedJob(in: store)
        #expect(!store.isCancelRequested(id: job.id))
        try store.requestCancel(id: job.id)
        #expect(store.isCancelRequested(id: job.id))
        try store.appendRun(id: job.id, "a 1 start")
        try store.appendRun(id: job.id, "a 1 end succeeded")
        let runs = try String(contentsOfFile: store.jobDirectory(id: job.id) + "/runs", encoding: .utf8)
        #expect(runs == "a 1 start\na 1 end succeeded\n")
    }

    /// With several replicas, start-up spares young leftovers (another replica's upload under way) and
    /// removes old ones. (Age counts from the last change or rename, so the old file really has to age.)
    @Test func sharedStartUpSparesYoungLeftovers() throws {
        let scratch = try Scratch("lease")
        let store = try JobStore(root: scratch.path)
        let old = store.uploadsDirectory + "/old.part"
        try Data([1]).write(to: URL(fileURLWithPath: old))
        sleep(3)
        let young = try store.makeUpload()
        try [1, 2, 3].withUnsafeBytes { try young.write($0) }
        let scan = try store.loadAll(keepingLeftoversYoungerThan: 2)
        #expect(scan.removed == [old])
        #expect(try StoreFixtures.listing(store.uploadsDirectory).count == 1)
    }
}
