import Foundation
import TestSupport
import Testing

/// `mediad serve --database`: the webhook a replica owes is delivered by another when that replica dies.
@Suite(.serialized) struct DatabaseDeliveryTests {
    /// A replica named `name` on `postgres`' database `mediad` and the data directory `data`, which signs
    /// and sends webhooks to loopback, retrying quickly.
    static func replica(_ name: String, _ postgres: PostgresServer, data: String, log: String) throws
        -> ServerProcess
    {
        try ServerProcess(
            dataDirectory: data,
            [
                "--database", postgres.url(database: "mediad"), "--replica-id", name,
                "--lease-ttl", "\(DatabaseReplicaTests.leaseTTL)s", "--heartbeat", "0.5s", "--workers", "1",
                "--webhook-allow", "127.0.0.1", "--webhook-retry-base", "0.1",
            ], environment: ["MEDIAD_WEBHOOK_SECRET": WebhookTests.secret], logFile: log)
    }

    static func notifications(_ json: [String: Any]) -> [Int?] {
        (json["notifications"] as? [[String: Any]] ?? []).map { $0["status"] as? Int }
    }

    /// r1 runs a job whose receiver answers 500, and is SIGKILLed while retrying its webhook: r2 takes the
    /// delivery over once r1's delivery lease lapses, and the receiver, answering 200 by then, gets it with
    /// the same `webhook-id`; the job's `notifications` hold r1's attempts, then r2's, the last a 200.
    @Test func aDeadReplicasWebhookIsDeliveredByAnother() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-deliveries")
        let data = scratch.file("data")
        let receiver = try WebhookReceiver(statuses: [500])
        defer { receiver.stop() }
        let r1 = try Self.replica("r1", postgres, data: data, log: scratch.file("r1.log"))
        defer { r1.stop(SIGKILL) }
        let created = try Curl.run(
            r1.url("/jobs/remux?format=mkv&wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(receiver.url)/hooks"])
        #expect(created.json["state"] as? String == "succeeded", "\(created.text)")
        let id = try #require(created.json["id"] as? String, "\(created.text)")
        #expect(created.json["replica"] as? String == "r1", "\(created.text)")

        // r2 starts while r1 delivers: r1's lease is live, so r2 leaves the delivery alone.
        let r2Log = scratch.file("r2.log")
        let r2 = try Self.replica("r2", postgres, data: data, log: r2Log)
        defer { r2.stop() }
        let retrying = try EventStreamTests.eventually(60) {
            Self.notifications(try DatabaseReplicaTests.job(r2, id)).count >= 2
        }
        #expect(retrying, "r1 never retried the webhook")
        #expect(try postgres.psql("SELECT deliverer FROM jobs WHERE id = '\(id)'", database: "mediad") == "r1")

        r1.stop(SIGKILL)
        let before = Self.notifications(try DatabaseReplicaTests.job(r2, id))
        receiver.answer(with: 200)
        var after: [Int?] = []
        let delivered = try EventStreamTests.eventually(120) {
            after = Self.notifications(try DatabaseReplicaTests.job(r2, id))
            return after.last == 200
        }
        #expect(delivered, "r2 never delivered the webhook r1 owed: \(after)")
        #expect(Array(after.prefix(before.count)) == before, "r1's attempts stay as recorded")
        #expect(after.dropLast().allSatisfy { $0 == 500 }, "\(after)")
        let log = try String(contentsOfFile: r2Log, encoding: .utf8)
        #expect(log.contains("took over the deliveries of a job whose replica stopped renewing them"))
        #expect(log.contains(id))

        let requests = receiver.received
        #expect(requests.count >= after.count, "every attempt recorded reached the receiver")
        #expect(requests.allSatisfy { $0.headers["webhook-id"] == "msg_\(id)" })
        #expect(requests.allSatisfy { $0.target == "/hooks" })
        // Delivered: the lease is gone, and no replica sends it again.
        let cleared = try EventStreamTests.eventually(60) {
            try postgres.psql("SELECT coalesce(deliverer, 'none') FROM jobs WHERE id = '\(id)'", database: "mediad")
                == "none"
        }
        #expect(cleared, "the delivery lease outlived the delivery")
        #expect(Self.notifications(try DatabaseReplicaTests.job(r2, id)).count == after.count)
    }
}
