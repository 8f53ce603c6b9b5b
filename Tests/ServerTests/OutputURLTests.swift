import Foundation
import TestSupport
import Testing

/// Outputs PUT to presigned URLs (`output_url`, `output_urls`) after the job succeeded: to a real S3
/// server (SeaweedFS, URLs presigned and objects read back with boto3), and to `Peers/file_server.py` for
/// retries, refusals and a restart in the middle of a delivery.
@Suite(.serialized) struct OutputURLTests {
    static let secret = "whsec-test-0123456789"

    /// Polls the job until every delivery is final (at most `seconds`).
    func delivered(_ server: ServerProcess, _ id: String, seconds: Double = 60) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var json: [String: Any] = [:]
        repeat {
            json = try Curl.run(server.url("/jobs/\(id)?wait=10")).json
            let states = deliveries(json).map { $0["state"] as? String ?? "" }
            if json["state"] as? String != "running", json["state"] as? String != "queued",
                states.allSatisfy({ ["delivered", "failed", "skipped"].contains($0) })
            {
                return json
            }
            usleep(100_000)
        } while Date() < deadline
        return json
    }

    func deliveries(_ job: [String: Any]) -> [[String: Any]] { job["deliveries"] as? [[String: Any]] ?? [] }

    func delivery(_ job: [String: Any], _ name: String) -> [String: Any] {
        deliveries(job).first { $0["name"] as? String == name } ?? [:]
    }

    func signature(_ url: String) -> String {
        String(url.components(separatedBy: "X-Amz-Signature=").last ?? "")
    }

    @Test func deliversToS3WithTheRightBytesAndTheWebhookSaysSo() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("output-url")
        let log = scratch.file("server.log")
        let receiver = try WebhookReceiver(statuses: [204])
        defer { receiver.stop() }
        let server = try ServerProcess(
            ["--egress-allow", "127.0.0.1", "--webhook-allow", "127.0.0.1", "--log-level", "debug"],
            environment: ["MEDIAD_WEBHOOK_SECRET": Self.secret], logFile: log)
        let names = ["audio.aac", "video.h264", "info.json"]
        let urls = try Dictionary(uniqueKeysWithValues: names.map { ($0, try s3.putURL("demux/\($0)")) })
        let json = String(decoding: try JSONSerialization.data(withJSONObject: urls), as: UTF8.self)
        let created = try Curl.run(
            server.url("/jobs/demux"),
            [
                "-T", try Fixtures.h264AacMP4(), "--url-query", "output_urls=\(json)", "--url-query",
                "callback_url=\(receiver.url)/hooks",
            ])
        #expect(created.status == 202)
        let id = try #require(created.json["id"] as? String)
        #expect(deliveries(created.json).map { $0["state"] as? String } == ["pending", "pending", "pending"])
        let job = try delivered(server, id)
        #expect(job["state"] as? String == "succeeded")
        let outputs = try #require(job["outputs"] as? [[String: Any]])
        for name in names {
            let entry = delivery(job, name)
            #expect(entry["state"] as? String == "delivered", "\(entry)")
            #expect(entry["attempts"] as? Int == 1)
            #expect(entry["status"] as? Int == 200)
            #expect(entry["url"] as? String == "http://127.0.0.1:\(s3.peer.port)/mediad/demux/\(name)")
            let object = try s3.read("demux/\(name)")
            let output = try #require(outputs.first { $0["name"] as? String == name })
            #expect(object["sha256"] as? String == output["sha256"] as? String, "\(name)")
            #expect(object["size"] as? Int == output["size"] as? Int)
            #expect(object["content_type"] as? String == output["content_type"] as? String)
            #expect((entry["etag"] as? String).map { !$0.isEmpty } == true)
            #expect(entry["etag"] as? String == object["etag"] as? String)
        }
        // The webhook came after the deliveries ended, and carries them.
        let deadline = Date().addingTimeInterval(20)
        while receiver.received.isEmpty && Date() < deadline { usleep(100_000) }
        let request = try #require(receiver.received.first)
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(deliveries(body).map { $0["state"] as? String } == ["delivered", "delivered", "delivered"])

        // A presigned GET works as input_url; the primary output goes to output_url.
        try s3.upload(try Fixtures.h264AacMP4(), as: "in/talk.mp4")
        let getURL = try s3.getURL("in/talk.mp4")
        let putURL = try s3.putURL("out/talk.mkv")
        let remux = try Curl.run(
            server.url("/jobs/remux?format=mkv"),
            ["-X", "POST", "--url-query", "input_url=\(getURL)", "--url-query", "output_url=\(putURL)"])
        let remuxed = try delivered(server, try #require(remux.json["id"] as? String))
        #expect(remuxed["state"] as? String == "succeeded")
        #expect(delivery(remuxed, "output.mkv")["state"] as? String == "delivered")
        let input = try s3.read("in/talk.mp4")
        #expect((remuxed["inputs"] as? [[String: Any]])?.first?["sha256"] as? String == input["sha256"] as? String)
        let output = (remuxed["outputs"] as? [[String: Any]])?.first
        #expect(try s3.read("out/talk.mkv")["sha256"] as? String == output?["sha256"] as? String)

        // No signature is shown back or logged.
        let secrets = (Array(urls.values) + [getURL, putURL]).map(signature)
        #expect(secrets.allSatisfy { $0.count == 64 })
        let texts = [
            created.text, remux.text, String(decoding: request.body, as: UTF8.self),
            try Curl.run(server.url("/jobs/\(id)")).text, try Curl.run(server.url("/jobs")).text,
            try Curl.run(server.url("/jobs/\(id)/log")).text, try String(contentsOfFile: log, encoding: .utf8),
        ]
        for secret in secrets { #expect(texts.allSatisfy { !$0.contains(secret) }) }
    }

    @Test func retriesAServerErrorAndStopsAtARefusal() throws {
        let files = try Scratch("output-target")
        let target = try PeerProcess.script("file_server.py", [files.path])
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let input = try Fixtures.h264AacMP4()
        func remux(_ arguments: [String]) throws -> Curl.Reply {
            try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input] + arguments)
        }
        let flaky = try remux([
            "--url-query", "output_url=\(target.url)/fail-once/a.mkv", "--url-query",
            "output_urls={\"extra.bin\":\"\(target.url)/put/extra.bin\"}",
        ])
        let job = try delivered(server, try #require(flaky.json["id"] as? String))
        let primary = delivery(job, "output.mkv")
        #expect(primary["state"] as? String == "delivered")
        #expect(primary["attempts"] as? Int == 2)
        #expect(primary["status"] as? Int == 201)
        let stored = try Command.run("sha256sum", [files.file("a.mkv")]).text.prefix(64)
        #expect(String(stored) == (job["outputs"] as? [[String: Any]])?.first?["sha256"] as? String)
        #expect(delivery(job, "extra.bin")["state"] as? String == "failed")
        #expect((delivery(job, "extra.bin")["error"] as? String)?.contains("no output named extra.bin") == true)
        #expect(job["state"] as? String == "succeeded")

        let forbidden = try delivered(
            server,
            try #require(try remux(["--url-query", "output_url=\(target.url)/elsewhere"]).json["id"] as? String))
        #expect(delivery(forbidden, "output.mkv")["state"] as? String == "failed")
        #expect(delivery(forbidden, "output.mkv")["attempts"] as? Int == 1)
        #expect(delivery(forbidden, "output.mkv")["status"] as? Int == 403)

        for (arguments, code) in [
            (["--url-query", "output_url=http://169.254.169.254/x"], "output_refused"),
            (["--url-query", "output_urls=[1]"], "invalid_option"),
            (["--url-query", "output_urls={\"../x\":\"\(target.url)/put/x\"}"], "invalid_option"),
            (
                [
                    "--url-query", "output_url=\(target.url)/put/a", "--url-query",
                    "output_urls={\"output.mkv\":\"\(target.url)/put/b\"}",
                ], "invalid_option"
            ),
        ] {
            let refused = try remux(arguments)
            #expect(refused.status == 400, "\(arguments)")
            #expect(refused.errorCode == code, "\(arguments)")
        }
        let off = try ServerProcess()
        let disabled = try Curl.run(
            off.url("/jobs/remux"), ["-T", input, "--url-query", "output_url=\(target.url)/put/a"])
        #expect(disabled.errorCode == "egress_disabled")
    }

    /// A target that drops the connection in the middle of the body, with no answer, is a network failure:
    /// the delivery is tried again, from the start, and the object stored has the output's bytes.
    @Test func retriesADeliveryCutOffInTheMiddle() throws {
        let files = try Scratch("output-cut")
        let target = try PeerProcess.script("file_server.py", [files.path])
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try Curl.run(
            server.url("/jobs/remux?format=mkv"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "output_url=\(target.url)/cut-once/a.mkv"])
        let job = try delivered(server, try #require(created.json["id"] as? String))
        let primary = delivery(job, "output.mkv")
        #expect(primary["state"] as? String == "delivered", "\(primary)")
        #expect(primary["attempts"] as? Int == 2)
        #expect(primary["status"] as? Int == 201)
        let stored = try Command.run("sha256sum", [files.file("a.mkv")]).text.prefix(64)
        #expect(String(stored) == (job["outputs"] as? [[String: Any]])?.first?["sha256"] as? String)
    }

    @Test func aDeliveryCutOffByARestartIsDoneAgain() throws {
        let files = try Scratch("output-restart")
        let target = try PeerProcess.script("file_server.py", [files.path])
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try Curl.run(
            server.url("/jobs/remux?format=mkv"),
            ["-T", try Fixtures.h264AacMP4(), "--url-query", "output_url=\(target.url)/hold/a.mkv"])
        let id = try #require(created.json["id"] as? String)
        let deadline = Date().addingTimeInterval(30)
        var job: [String: Any] = [:]
        repeat {
            job = try Curl.run(server.url("/jobs/\(id)")).json
            usleep(50_000)
        } while delivery(job, "output.mkv")["state"] as? String != "delivering" && Date() < deadline
        #expect(delivery(job, "output.mkv")["state"] as? String == "delivering")
        server.stop(SIGKILL)
        try server.launch()
        let resumed = try delivered(server, id)
        #expect(delivery(resumed, "output.mkv")["state"] as? String == "delivered")
        #expect(delivery(resumed, "output.mkv")["attempts"] as? Int == 2)
        #expect(FileManager.default.fileExists(atPath: files.file("a.mkv")))
    }
}
