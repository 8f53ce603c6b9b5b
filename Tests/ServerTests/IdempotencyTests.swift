import Foundation
import TestSupport
import Testing

/// `Idempotency-Key` on `POST /jobs/*`, with real curl: repeats get the original job, mismatches 409.
@Suite(.serialized) struct IdempotencyTests {
    func jobDirectories(_ server: ServerProcess) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").filter {
            !$0.hasPrefix(".")
        }
    }

    func key(_ value: String) -> [String] { ["-H", "Idempotency-Key: \(value)"] }

    @Test func theSameKeyTwiceMakesOneJob() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let first = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input] + key("build-41"))
        #expect(first.status == 202)
        let id = try #require(first.json["id"] as? String)
        let second = try Curl.run(server.url("/jobs/remux?format=mkv&wait=30"), ["-T", input] + key("build-41"))
        #expect(second.status == 200)
        #expect(second.json["id"] as? String == id)
        #expect(second.headers["location"] == "/jobs/\(id)")
        #expect(second.headers["idempotent-replayed"] == "true")
        #expect(second.json["state"] as? String == "succeeded")
        // The same key as a multipart upload, with the option as a form field, is the same request.
        let form = try Curl.run(
            server.url("/jobs/remux"), ["-F", "file=@\(input)", "-F", "format=mkv"] + key("build-41"))
        #expect(form.status == 200)
        #expect(form.json["id"] as? String == id)
        #expect(try jobDirectories(server) == [id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        // Another key is another job.
        let other = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input] + key("build-42"))
        #expect(other.status == 202)
        #expect(other.json["id"] as? String != id)
    }

    @Test func aDifferentBodyOrDifferentOptionsIsAConflict() throws {
        let server = try ServerProcess()
        let created = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()] + key("k"))
        #expect(created.status == 202)
        let body = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.hevcAacMP4()] + key("k"))
        #expect(body.status == 409)
        #expect(body.errorCode == "idempotency_mismatch")
        #expect(body.text.contains("different input"))
        let options = try Curl.run(server.url("/jobs/remux?format=mov"), ["-T", try Fixtures.h264AacMP4()] + key("k"))
        #expect(options.status == 409)
        #expect(options.errorCode == "idempotency_mismatch")
        #expect(options.text.contains("different options"))
        let kind = try Curl.run(server.url("/jobs/demux"), ["-T", try Fixtures.h264AacMP4()] + key("k"))
        #expect(kind.status == 409)
        #expect(try jobDirectories(server).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }

    @Test func keysBelongToTheirToken() throws {
        let scratch = try Scratch("idempotency")
        let tokens = try scratch.write(
            "tokens", Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        let input = try Fixtures.h264AacMP4()
        let alice = try Curl.run(
            server.url("/jobs/demux"), ["-T", input, "-H", "Authorization: Bearer alice-token-0123456789"] + key("k"))
        let bob = try Curl.run(
            server.url("/jobs/demux"), ["-T", input, "-H", "Authorization: Bearer bob-token-0123456789"] + key("k"))
        #expect(alice.status == 202)
        #expect(bob.status == 202)
        #expect(alice.json["id"] as? String != bob.json["id"] as? String)
        let again = try Curl.run(
            server.url("/jobs/demux"), ["-T", input, "-H", "Authorization: Bearer bob-token-0123456789"] + key("k"))
        #expect(again.status == 200)
        #expect(again.json["id"] as? String == bob.json["id"] as? String)
        #expect(try jobDirectories(server).count == 2)
    }

    @Test func concurrentRequestsWithOneKeyMakeOneJob() async throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let url = server.url("/jobs/remux?format=mp4")
        let replies = try await withThrowingTaskGroup(of: Curl.Reply.self) { group in
            for _ in 0..<8 { group.addTask { try Curl.run(url, ["-T", input, "-H", "Idempotency-Key: same"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let ids = Set(replies.compactMap { $0.json["id"] as? String })
        #expect(ids.count == 1)
        #expect(replies.allSatisfy { $0.status == 200 || $0.status == 202 })
        #expect(replies.filter { $0.status == 202 }.count <= 1)
        #expect(try jobDirectories(server) == Array(ids))
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }

    @Test func aDeletedJobFreesItsKeyAndBadKeysAreRefused() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let first = try Curl.run(server.url("/jobs/demux?wait=30"), ["-T", input] + key("again"))
        let id = try #require(first.json["id"] as? String)
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 204)
        let second = try Curl.run(server.url("/jobs/demux"), ["-T", input] + key("again"))
        #expect(second.status == 202)
        #expect(second.json["id"] as? String != id)

        for bad in [String(repeating: "k", count: 256), "tab\there", "naïve"] {
            let refused = try Curl.run(server.url("/jobs/demux"), ["-T", input] + key(bad))
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.errorCode == "invalid_request")
        }
        let twice = try Curl.run(server.url("/jobs/demux"), ["-T", input] + key("a") + key("b"))
        #expect(twice.status == 400)
        #expect(
            try Curl.run(server.url("/jobs/demux"), ["-T", input] + key(String(repeating: "k", count: 255))).status
                == 202)
    }

    @Test func keysSurviveARestart() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let first = try Curl.run(server.url("/jobs/demux?wait=30"), ["-T", input] + key("durable"))
        server.stop()
        try server.launch()
        let second = try Curl.run(server.url("/jobs/demux"), ["-T", input] + key("durable"))
        #expect(second.status == 200)
        #expect(second.json["id"] as? String == first.json["id"] as? String)
    }
}
