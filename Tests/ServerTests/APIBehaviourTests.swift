import Foundation
import TestSupport
import Testing

/// The HTTP contract around jobs: long-poll, listing, cancel, downloads, and every refusal.
@Suite(.serialized) struct APIBehaviourTests {
    /// A PCM file long enough (half an hour of stereo noise) that encoding it takes many seconds, so a test
    /// can see its job running and act on it (ten minutes took about 5 s, and on a loaded CI a job of it
    /// ended between two polls). Made once per test process.
    static func longPCM() throws -> String {
        try Fixtures.make(
            "noise-30min.pcm",
            ["-f", "lavfi", "-i", "anoisesrc=duration=1800:sample_rate=44100", "-ac", "2", "-f", "s16le"])
    }

    @Test func longPollWaitsForTheEnd() throws {
        let server = try ServerProcess()
        let created = try Curl.run(server.url("/jobs/remux"), ["-T", try Fixtures.h264AacMP4()])
        let id = try #require(created.json["id"] as? String)
        let polled = try Curl.run(server.url("/jobs/\(id)?wait=30"))
        #expect(polled.json["state"] as? String == "succeeded")
        // An ended job is answered at once: a server that waited would meet curl's limit first.
        let instant = try Curl.run(server.url("/jobs/\(id)?wait=300"), ["--max-time", "120"])
        #expect(instant.json["state"] as? String == "succeeded")
        #expect(try Curl.run(server.url("/jobs/\(id)?wait=abc")).errorCode == "invalid_option")
    }

    @Test func listsNewestFirstWithCursorPaging() throws {
        let server = try ServerProcess()
        var ids: [String] = []
        for _ in 0..<5 {
            let reply = try Curl.run(server.url("/jobs/demux?wait=30"), ["-T", try Fixtures.h264AacMP4()])
            ids.append(try #require(reply.json["id"] as? String))
        }
        var seen: [String] = []
        var cursor: String? = nil
        repeat {
            let page = try Curl.run(server.url("/jobs?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")))
            #expect(page.status == 200)
            seen += (page.json["jobs"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = page.json["next_cursor"] as? String
        } while cursor != nil
        #expect(seen == ids.reversed())
        let filtered = try Curl.run(server.url("/jobs?state=failed"))
        #expect((filtered.json["jobs"] as? [Any])?.isEmpty == true)
        #expect(try Curl.run(server.url("/jobs?state=done")).errorCode == "invalid_option")
        #expect(try Curl.run(server.url("/jobs?cursor=garbage")).status == 400)
    }

    @Test func cancelsARunningJob() throws {
        let server = try ServerProcess()
        let created = try Curl.run(server.url("/jobs/encode?format=m4a"), ["-T", try Self.longPCM()])
        let id = try #require(created.json["id"] as? String)
        // Generous bounds: a loaded machine can take many seconds to start the worker.
        var state = ""
        for _ in 0..<1200 where state != "running" {
            usleep(50_000)
            state = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String ?? ""
        }
        #expect(state == "running")
        var progress = 0.0
        for _ in 0..<1200 where progress == 0 {
            usleep(50_000)
            progress = try Curl.run(server.url("/jobs/\(id)")).json["progress"] as? Double ?? 0
        }
        #expect(progress > 0 && progress < 1, "progress moves while the job runs")
        let cancelled = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(cancelled.status == 200)
        #expect(cancelled.json["state"] as? String == "cancelled")
        #expect(cancelled.json["progress"] as? Double ?? 0 >= progress, "a cancelled job keeps its progress")
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.hasSuffix(" cancelled\n") && !log.contains("failed: cancelled"), "\(log.suffix(200))")
        let output = try Curl.run(server.url("/jobs/\(id)/outputs/output.m4a"))
        #expect(output.status == 409 && output.errorCode == "not_ready")
        let listing = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        #expect(listing.isEmpty)
        let deleted = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(deleted.status == 204)
        #expect(try Curl.run(server.url("/jobs/\(id)")).status == 404)
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory + "/jobs/\(id)"))
    }

    @Test func servesRangesAndConditionalRequests() throws {
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        let whole = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(whole.headers["accept-ranges"] == "bytes")
        let size = whole.body.count
        let part = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "Range: bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes 100-199/\(size)")
        #expect(part.body == whole.body[100..<200])
        let tail = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "Range: bytes=-10"])
        #expect(tail.body == whole.body.suffix(10))
        let beyond = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "Range: bytes=\(size + 5)-"])
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */\(size)")
        let etag = try #require(whole.headers["etag"])
        let notModified = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "If-None-Match: \(etag)"])
        #expect(notModified.status == 304)
        #expect(notModified.headers["etag"] == etag)
        #expect(notModified.body.isEmpty)
        let head = try Curl.run(server.url("/jobs/\(id)/output"), ["-I"])
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == String(size))
        let escape = try Curl.run(server.url("/jobs/\(id)/outputs/..%2Fjob.json"))
        #expect(escape.status == 400 && escape.errorCode == "invalid_output_name")
        #expect(try Curl.run(server.url("/jobs/\(id)/outputs/output.mkv")).status == 404)
    }

    @Test func refusesWithStableCodes() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let unknownKind = try Curl.run(server.url("/jobs/sharpen"), ["-T", input])
        #expect(unknownKind.status == 404)
        #expect(unknownKind.errorCode == "not_found")
        let method = try Curl.run(server.url("/healthz"), ["-X", "POST"])
        #expect(method.status == 405)
        #expect(method.errorCode == "method_not_allowed")
        #expect(method.headers["allow"] == "GET, HEAD")
        // `Allow` lists what openapi.yaml documents for the path (and `HEAD` wherever `GET` is served): a kind
        // is created, a job id read or deleted.
        for (path, allowed) in [
            ("/jobs/remux", ["POST", "PUT"]), ("/jobs/AAAAAAAAAAAAAAAAAAAAAA", ["GET", "HEAD", "DELETE"]),
        ] {
            let patch = try Curl.run(server.url(path), ["-X", "PATCH"])
            #expect(patch.headers["allow"].map { Set($0.components(separatedBy: ", ")) } == Set(allowed), "\(path)")
        }
        let badOption = try Curl.run(server.url("/jobs/remux?format=avi"), ["-T", input])
        #expect(badOption.status == 400)
        #expect(badOption.errorCode == "invalid_option")
        #expect(badOption.json.description.contains("mp4, mov, m4a, mkv, ts, flv, asf"))
        let unknownOption = try Curl.run(server.url("/jobs/remux?speed=2"), ["-T", input])
        #expect(unknownOption.errorCode == "invalid_option")
        let wrongPart = try Curl.run(server.url("/jobs/remux"), ["-F", "video=@\(input)"])
        #expect(wrongPart.status == 400)
        #expect(wrongPart.errorCode == "unexpected_part")
        let noInput = try Curl.run(server.url("/jobs/remux"), ["-F", "format=mkv"])
        #expect(noInput.errorCode == "missing_input")
        let empty = try Curl.run(server.url("/jobs/remux"), ["-X", "POST"])
        #expect(empty.errorCode == "missing_input")
        #expect(try Curl.run(server.url("/jobs/AAAAAAAAAAAAAAAAAAAAAA")).status == 404)
        #expect(try Curl.run(server.url("/jobs/..%2F..%2Fetc")).status == 404)
        #expect(try Curl.run(server.url("/nothing")).errorCode == "not_found")
        #expect(try Curl.run(server.url("/healthz")).json["status"] as? String == "ok")
        #expect(try Curl.run(server.url("/readyz")).json["status"] as? String == "ready")
        #expect(try Curl.run(server.url("/openapi.yaml")).text.hasPrefix("openapi: 3.1"))
        let jobs = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs")
        #expect(jobs.isEmpty, "refused requests created \(jobs)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }

    @Test func refusesOversizeBodiesBeforeReadingThem() throws {
        let server = try ServerProcess(["--max-upload", "1M"])
        let scratch = try Scratch("big")
        let big = scratch.file("big.bin")
        try Command.run("truncate", ["-s", "5M", big])
        let declared = try Curl.run(server.url("/jobs/remux"), ["-T", big])
        #expect(declared.status == 413)
        #expect(declared.errorCode == "payload_too_large")
        let chunked = try Curl.run(server.url("/jobs/remux"), ["-T", big, "-H", "Transfer-Encoding: chunked"])
        #expect(chunked.status == 413)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }

    @Test func takesSettingsFromTheEnvironment() throws {
        let server = try ServerProcess(environment: ["MEDIAD_MAX_UPLOAD": "1K"])
        let refused = try Curl.run(server.url("/jobs/remux"), ["-T", try Fixtures.h264AacMP4()])
        #expect(refused.status == 413)
        let flagWins = try ServerProcess(["--max-upload", "1G"], environment: ["MEDIAD_MAX_UPLOAD": "1K"])
        #expect(try Curl.run(flagWins.url("/jobs/remux"), ["-T", try Fixtures.h264AacMP4()]).status == 202)
    }

    @Test func answers429WhenTheQueueIsFull() throws {
        let server = try ServerProcess(["--workers", "1", "--max-queued", "1"])
        let long = try Self.longPCM()
        #expect(try Curl.run(server.url("/jobs/encode"), ["-T", long]).status == 202)
        #expect(try Curl.run(server.url("/jobs/encode"), ["-T", long]).status == 202)
        let refused = try Curl.run(server.url("/jobs/encode"), ["-T", long])
        #expect(refused.status == 429)
        #expect(refused.errorCode == "queue_full")
        #expect(refused.headers["retry-after"] != nil)
    }
}
