import Foundation
import JobDatabase
import JobStore
import Testing

/// The delivery lease of ended jobs that owe output deliveries or their webhook, on a real PostgreSQL: set
/// by the statement that ends the job, renewed by its deliverer, taken over once it lapses, and fencing the
/// deliverer's writes.
@Suite(.postgres, .timeLimit(.minutes(5))) struct DeliveryLeaseTests {
    /// A queued job with a `callback_url`, stored.
    static func owingJob(_ database: JobDatabase, offset: Int = 0) async throws -> JobRecord {
        var record = DatabaseFixtures.record(offset: offset)
        record.callbackURL = "http://127.0.0.1:9/hooks"
        try await database.insert(record)
        return record
    }

    /// Claims `record` for `replica` and ends its run `succeeded` with a delivery lease of `ttl` seconds.
    static func endRun(_ database: JobDatabase, _ record: JobRecord, replica: String, ttl: Double) async throws
        -> JobRecord
    {
        let claim = try #require(try await database.claim(record.id, replica: replica, ttl: 600))
        var ended = claim.record
        ended.state = .succeeded
        ended.finishedAt = Date()
        #expect(try await database.release(claim.lease, record: ended, outcome: "succeeded", ttl: ttl))
        return ended
    }

    @Test func theEndOfARunGivesOwedDeliveriesToItsReplica() async throws {
        try await PostgresSuite.withDatabase("deliveries_end") { database in
            let owing = try await Self.owingJob(database, offset: 0)
            let quiet = DatabaseFixtures.record(offset: 1)
            try await database.insert(quiet)
            _ = try await Self.endRun(database, owing, replica: "r1", ttl: 600)
            _ = try await Self.endRun(database, quiet, replica: "r1", ttl: 600)

            let stored = try #require(try await database.load(owing.id))
            #expect(stored.deliverer == "r1" && stored.holder == nil)
            let expires = try #require(stored.deliveryExpiresAt)
            #expect(expires > Date().addingTimeInterval(300), "the lease runs the TTL from the database's now()")
            let none = try #require(try await database.load(quiet.id))
            #expect(none.deliverer == nil && none.deliveryExpiresAt == nil, "no callback, nothing owed")
        }
    }

    @Test func theDelivererRenewsAndEndsItsLeaseWithTheLastAttempt() async throws {
        try await PostgresSuite.withDatabase("deliveries_renew") { database in
            var record = try await Self.endRun(
                database, try await Self.owingJob(database), replica: "r1", ttl: 60)
            let before = try #require(try await database.load(record.id)?.deliveryExpiresAt)
            #expect(try await database.renewDeliveries([record.id, "missing"], replica: "r1", ttl: 600) == [record.id])
            let after = try #require(try await database.load(record.id)?.deliveryExpiresAt)
            #expect(after > before)
            #expect(try await database.renewDeliveries([record.id], replica: "r2", ttl: 600).isEmpty)
            #expect(try await database.takeDeliveries(record.id, replica: "r2", ttl: 600) == false, "a live lease")

            record.notifications = [NotificationAttempt(at: Date(), status: 500, error: "the receiver answered 500")]
            #expect(try await database.saveDelivery(record, deliverer: "r1", ends: false))
            #expect(try await database.load(record.id)?.deliverer == "r1")
            record.notifications?.append(NotificationAttempt(at: Date(), status: 204, error: nil))
            #expect(try await database.saveDelivery(record, deliverer: "r1", ends: true))
            let ended = try #require(try await database.load(record.id))
            #expect(ended.deliverer == nil && ended.deliveryExpiresAt == nil)
            #expect(ended.record.notifications?.map(\.status) == [500, 204])
            // Nothing is owed any more: another replica may take the job for a redelivery on request.
            #expect(try await database.takeDeliveries(record.id, replica: "r2", ttl: 600))
        }
    }

    /// r1 stops renewing: once its lease lapses r2 takes the deliveries over with the attempts recorded, and
    /// r1's late writes, renewals and end are refused.
    @Test func aLapsedLeaseIsTakenOverAndTheOldDelivererIsFencedOff() async throws {
        try await PostgresSuite.withDatabase("deliveries_takeover") { database in
            var record = try await Self.endRun(
                database, try await Self.owingJob(database), replica: "r1", ttl: 600)
            record.notifications = [NotificationAttempt(at: Date(), status: 500, error: "the receiver answered 500")]
            #expect(try await database.saveDelivery(record, deliverer: "r1", ends: false))
            #expect(try await database.takeOverExpiredDeliveries(replica: "r2", ttl: 600).isEmpty, "still live")

            // r1's last renewal gives it a short lease, which it never renews.
            #expect(try await database.renewDeliveries([record.id], replica: "r1", ttl: 0.2) == [record.id])
            var taken: [DeliveryTakeover] = []
            #expect(
                try await DatabaseFixtures.eventually {
                    taken = try await database.takeOverExpiredDeliveries(replica: "r2", ttl: 600)
                    return !taken.isEmpty
                })
            #expect(taken.map(\.record.id) == [record.id])
            #expect(taken.first?.from == "r1")
            #expect(taken.first?.record.notifications?.map(\.status) == [500], "the attempts recorded go along")
            #expect(try await database.load(record.id)?.deliverer == "r2")

            var late = record
            late.notifications?.append(NotificationAttempt(at: Date(), status: 204, error: nil))
            #expect(try await database.saveDelivery(late, deliverer: "r1", ends: true) == false)
            #expect(try await database.renewDeliveries([record.id], replica: "r1", ttl: 600).isEmpty)
            #expect(try await database.endDeliveries(record.id, deliverer: "r1") == false)
            #expect(try await database.saveUnheld(late, replica: "r1", ttl: 600) == false, "nor as an unheld job")
            let stored = try #require(try await database.load(record.id))
            #expect(stored.deliverer == "r2" && stored.record.notifications?.count == 1)

            #expect(try await database.saveDelivery(late, deliverer: "r2", ends: true))
            #expect(try await database.load(record.id)?.deliverer == nil)
            #expect(try await database.takeOverExpiredDeliveries(replica: "r3", ttl: 600).isEmpty)
        }
    }

    /// A replica restarted under the same id takes back its own leases at once, whatever their expiry.
    @Test func aRestartedReplicaResumesItsOwnDeliveries() async throws {
        try await PostgresSuite.withDatabase("deliveries_resume") { database in
            let mine = try await Self.endRun(
                database, try await Self.owingJob(database, offset: 0), replica: "r1", ttl: 600)
            _ = try await Self.endRun(database, try await Self.owingJob(database, offset: 1), replica: "r2", ttl: 600)
            #expect(try await database.resumeDeliveries(replica: "r1", ttl: 600).map(\.id) == [mine.id])
        }
    }

    /// A queued job with a callback cancelled before any claim owes its webhook to the replica that
    /// cancelled it.
    @Test func aCancelledQueuedJobOwesItsWebhookToTheCancellingReplica() async throws {
        try await PostgresSuite.withDatabase("deliveries_cancel") { database in
            var record = try await Self.owingJob(database)
            record.state = .cancelled
            #expect(try await database.saveUnheld(record, replica: "r2", ttl: 600))
            #expect(try await database.load(record.id)?.deliverer == "r2")
        }
    }
}
