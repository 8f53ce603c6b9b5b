import Foundation
import TestSupport
import Testing

/// Deliveries as standardwebhooks.com specifies them, verified by the `standardwebhooks` library (PyPI),
/// which shares no code with mediad; and a finished job's end delivered again on request.
@Suite(.serialized) struct StandardWebhookTests {
    /// Verifies every delivery in `requests` with the library, under `secret` as a receiver would hold it.
    static func verify(_ requests: [WebhookReceiver.Received], secret: String, scratch: Scratch) throws -> String {
        let items = requests.map { request in
            [
                "body": request.body.map { String(format: "%02x", $0) }.joined(),
                "headers": request.headers.filter { $0.key.hasPrefix("webhook-") },
            ] as [String: Any]
        }
        let file = try scratch.write("deliveries.json", Array(try JSONSerialization.data(withJSONObject: items)))
        let script = try scratch.write(
            "verify.py",
            Array(
                """
                import json, sys
                from standardwebhooks import Webhook
                secret, path = sys.argv[1], sys.argv[2]
                for item in json.load(open(path)):
                    Webhook(secret).verify(bytes.fromhex(item["body"]), item["headers"])
                print("verified", len(json.load(open(path))))
                """.utf8))
        return try Command.run("python3", [script, secret, file], allowFailure: true).text
    }

    func server(secret: String) throws -> ServerProcess {
        try ServerProcess(
            ["--webhook-allow", "127.0.0.1", "--webhook-retry-base", "0.1"],
            environment: ["MEDIAD_WEBHOOK_SECRET": secret])
    }

    /// Waits until the job lists `count` notification attempts.
    func notifications(_ server: ServerProcess, _ id: String, count: Int) throws -> [[String: Any]] {
        for _ in 0..<300 {
            let listed = try Curl.run(server.url("/jobs/\(id)")).json["notifications"] as? [[String: Any]] ?? []
            if listed.count >= count { return listed }
            usleep(100_000)
        }
        return []
    }

    @Test func aWhsecSecretSignsDeliveriesAndRedeliveriesKeepTheirId() throws {
        let scratch = try Scratch("standard-webhooks")
        let receiver = try WebhookReceiver(statuses: [204])
        defer { receiver.stop() }
        var generator = SeededBytes(seed: 29)
        let secret = "whsec_" + Data(generator.next(count: 24)).base64EncodedString()
        let server = try server(secret: secret)
        let created = try Curl.run(
            server.url("/jobs/remux?wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(receiver.url)/hooks"])
        let id = try #require(created.json["id"] as? String)
        #expect(try notifications(server, id, count: 1).first?["status"] as? Int == 204)

        let again = try Curl.run(server.url("/jobs/\(id)/notifications"), ["-X", "POST"])
        #expect(again.status == 202, "\(again.text)")
        #expect(again.json["id"] as? String == id)
        #expect(try notifications(server, id, count: 2).last?["status"] as? Int == 204)

        let requests = receiver.received
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.headers["webhook-id"] == "msg_\(id)" })
        #expect(requests.allSatisfy { $0.headers["mediad-signature"] != nil })
        #expect(try Self.verify(requests, secret: secret, scratch: scratch) == "verified 2\n")
        // The library refuses a tampered body, so it really checks.
        var forged = requests[0]
        forged.body = Data(String(decoding: forged.body, as: UTF8.self).replacingOccurrences(of: id, with: "x").utf8)
        #expect(try Self.verify([forged], secret: secret, scratch: scratch).isEmpty)
    }

    /// A delivery's last attempt is listed only once the delivery is over, so a redelivery asked for the
    /// moment the job lists it is accepted: 50 times in a row, each as soon as the one before is listed
    /// (the record used to show the attempt while the delivery still held its claim, and a quick client got
    /// 409 `delivery_in_progress`).
    @Test func aRedeliveryAskedTheMomentTheLastAttemptIsListedIsAccepted() throws {
        let receiver = try WebhookReceiver(statuses: [204])
        defer { receiver.stop() }
        let server = try server(secret: "plain-secret-0123456789")
        let created = try Curl.run(
            server.url("/jobs/remux?wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(receiver.url)/hooks"])
        let id = try #require(created.json["id"] as? String)
        // One kept-alive connection polls and asks at once, microseconds apart: curl's start-up took longer
        // than the window in which the record showed the attempt while the delivery still held its claim.
        // It waits for the delivered attempt, the last of its delivery: an attempt that failed on a loaded
        // machine (the receiver slow to answer) is listed too, and its delivery rightly goes on retrying.
        let answers = try Python.run(
            """
            import http.client, json, time
            c = http.client.HTTPConnection("127.0.0.1", \(server.port), timeout=30)
            deadline = time.time() + 240
            def delivered(listed):
                return sum(1 for n in listed if 200 <= (n.get("status") or 0) < 300)
            for listed in range(1, 51):
                while time.time() < deadline:
                    c.request("GET", "/jobs/\(id)")
                    if delivered(json.loads(c.getresponse().read()).get("notifications", [])) >= listed: break
                c.request("POST", "/jobs/\(id)/notifications")
                answer = c.getresponse()
                body = answer.read().decode()
                print(answer.status, body[:200] if answer.status != 202 else "")
                if answer.status != 202: break
            """)
        let statuses = answers.split(separator: "\n").map(String.init)
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0.hasPrefix("202") }, "\(statuses.filter { !$0.hasPrefix("202") })")
        var delivered: [[String: Any]] = []
        for _ in 0..<300 where delivered.count < 51 {
            let listed = try notifications(server, id, count: 51)
            delivered = listed.filter { (200..<300).contains($0["status"] as? Int ?? 0) }
            if delivered.count < 51 { usleep(100_000) }
        }
        #expect(delivered.count == 51)
        #expect(receiver.received.count >= 51)
    }

    @Test func anyOtherSecretIsTheKeyAsItsBytes() throws {
        let scratch = try Scratch("standard-webhooks")
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        let secret = "plain-secret-0123456789"
        let server = try server(secret: secret)
        let created = try Curl.run(
            server.url("/jobs/remux?wait=60"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "callback_url=\(receiver.url)/hooks"])
        let id = try #require(created.json["id"] as? String)
        _ = try notifications(server, id, count: 1)
        let asLibraryKey = "whsec_" + Data(secret.utf8).base64EncodedString()
        #expect(try Self.verify(receiver.received, secret: asLibraryKey, scratch: scratch) == "verified 1\n")
    }

    @Test func redeliveryIsRefusedWhenThereIsNothingToDeliver() throws {
        let server = try server(secret: "plain-secret-0123456789")
        let plain = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", try Fixtures.h264AacMP4()])
        let id = try #require(plain.json["id"] as? String)
        let none = try Curl.run(server.url("/jobs/\(id)/notifications"), ["-X", "POST"])
        #expect(none.status == 409)
        #expect(none.errorCode == "no_callback")
        let missing = try Curl.run(server.url("/jobs/AAAAAAAAAAAAAAAAAAAAAA/notifications"), ["-X", "POST"])
        #expect(missing.status == 404)
    }
}
