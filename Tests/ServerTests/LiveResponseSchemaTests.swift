import Foundation
import TestSupport
import Testing

/// What a real server answers — a succeeded, a failed and a cancelled job, lists, long-polls, probe
/// results, outputs, operations and every error shape it can be made to give — validated against
/// openapi.yaml's own response schemas by `response_check.py` (jsonschema). Examples in the spec prove
/// nothing about the server; these exchanges do.
@Suite(.serialized) struct LiveResponseSchemaTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "response_check.py")

    /// What `response_check.py` prints.
    struct Report: Decodable {
        var checked: Int
        var problems: [String]
    }

    /// One exchange as the checker reads it: `path` is the route's template in openapi.yaml.
    struct Exchange: Encodable {
        var label: String
        var method: String
        var path: String
        var status: Int
        var content_type: String?
        var body: String
    }

    /// The exchanges of one server, collected through curl.
    final class Recorder {
        let server: ServerProcess
        private(set) var exchanges: [Exchange] = []

        init(_ server: ServerProcess) { self.server = server }

        /// Sends `method` to `url` (a path on the server) and records the reply under `template`.
        @discardableResult
        func send(
            _ label: String, _ method: String, _ template: String, _ url: String, _ arguments: [String] = [],
            expect status: Int
        ) throws -> Curl.Reply {
            let reply = try Curl.run(server.url(url), ["-X", method] + arguments)
            #expect(reply.status == status, "\(label): \(reply.status) \(reply.text.prefix(300))")
            exchanges.append(
                Exchange(
                    label: label, method: method, path: template, status: reply.status,
                    content_type: reply.headers["content-type"], body: reply.text))
            return reply
        }

        func add(_ exchange: Exchange) { exchanges.append(exchange) }
    }

    static func check(_ exchanges: [Exchange]) throws -> Report {
        let scratch = try Scratch("live-responses")
        let file = try scratch.write("responses.json", Array(try JSONEncoder().encode(exchanges)))
        let output = try Command.run("python3", [script.path, file, OpenAPISpecTests.spec.path])
        return try JSONDecoder().decode(Report.self, from: output.stdout)
    }

    @Test func jobsListsAndProbesMatchTheSchemas() throws {
        let scratch = try Scratch("live-jobs")
        // Room for the half hour of PCM (317 MB) that keeps a job running.
        let server = try ServerProcess(["--max-upload", "400M"])
        let record = Recorder(server)
        let mp4 = try Fixtures.h264AacMP4()
        let created = try record.send(
            "created job", "POST", "/jobs/{kind}", "/jobs/remux?format=mkv", ["--data-binary", "@\(mp4)"],
            expect: 202)
        let id = try #require(created.json["id"] as? String)
        try record.send("long-polled succeeded job", "GET", "/jobs/{id}", "/jobs/\(id)?wait=60", expect: 200)
        let demux = try record.send(
            "demux job waited for", "PUT", "/jobs/{kind}", "/jobs/demux?wait=60", ["-T", mp4], expect: 200)
        let demuxID = try #require(demux.json["id"] as? String)
        try record.send("info.json", "GET", "/jobs/{id}/output", "/jobs/\(demuxID)/output", expect: 200)
        try record.send(
            "info.json by name", "GET", "/jobs/{id}/outputs/{name}", "/jobs/\(demuxID)/outputs/info.json",
            expect: 200)
        let package = try record.send(
            "package waited for", "PUT", "/jobs/{kind}", "/jobs/package?wait=60&format=cmaf&segment_duration=1",
            ["-T", mp4], expect: 200)
        let packageID = try #require(package.json["id"] as? String)
        try record.send(
            "a package's media playlist", "GET", "/jobs/{id}/outputs/{name}",
            "/jobs/\(packageID)/outputs/240p/index.m3u8", expect: 200)
        try record.send(
            "a package's segment", "GET", "/jobs/{id}/outputs/{name}", "/jobs/\(packageID)/outputs/240p/seg_00001.m4s",
            expect: 200)
        try record.send(
            "outputs archive", "GET", "/jobs/{id}/outputs.tar", "/jobs/\(packageID)/outputs.tar", expect: 200)
        try record.send(
            "download preflight", "OPTIONS", "/jobs/{id}/outputs/{name}", "/jobs/\(packageID)/outputs/master.m3u8",
            ["-H", "Origin: https://player.example", "-H", "Access-Control-Request-Method: GET"], expect: 204)
        try record.send("job log", "GET", "/jobs/{id}/log", "/jobs/\(id)/log", expect: 200)
        try record.send("events of an ended job", "GET", "/jobs/{id}/events", "/jobs/\(id)/events", expect: 200)

        let cut = try scratch.write("cut.mp4", [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4)).prefix(40_000)))
        let failing = try record.send(
            "failing job", "PUT", "/jobs/{kind}", "/jobs/remux", ["-T", cut], expect: 202)
        let failedID = try #require(failing.json["id"] as? String)
        let failed = try record.send("failed job", "GET", "/jobs/{id}", "/jobs/\(failedID)?wait=60", expect: 200)
        #expect(failed.json["state"] as? String == "failed")

        let long = try record.send(
            "running job", "PUT", "/jobs/{kind}", "/jobs/encode", ["-T", try APIBehaviourTests.longPCM()],
            expect: 202)
        let longID = try #require(long.json["id"] as? String)
        try record.send("output not ready", "GET", "/jobs/{id}/output", "/jobs/\(longID)/output", expect: 409)
        try record.send("job list", "GET", "/jobs", "/jobs", expect: 200)
        let page = try record.send("first page", "GET", "/jobs", "/jobs?limit=1", expect: 200)
        let cursor = try #require(page.json["next_cursor"] as? String)
        try record.send("next page", "GET", "/jobs", "/jobs?limit=1&cursor=\(cursor)", expect: 200)
        try record.send("filtered list", "GET", "/jobs", "/jobs?state=failed&kind=remux", expect: 200)
        let cancelled = try record.send("cancelled job", "DELETE", "/jobs/{id}", "/jobs/\(longID)", expect: 200)
        #expect(cancelled.json["state"] as? String == "cancelled")
        try record.send("cancelled job read", "GET", "/jobs/{id}", "/jobs/\(longID)", expect: 200)
        try record.send("deleted job", "DELETE", "/jobs/{id}", "/jobs/\(longID)", expect: 204)

        try record.send("probe", "POST", "/probe", "/probe", ["--data-binary", "@\(mp4)"], expect: 200)
        try record.send("probe by PUT", "PUT", "/probe", "/probe", ["-F", "file=@\(mp4)"], expect: 200)
        try record.send("health", "GET", "/healthz", "/healthz", expect: 200)
        try record.send("readiness", "GET", "/readyz", "/readyz", expect: 200)
        try record.send("metrics", "GET", "/metrics", "/metrics", expect: 200)
        try record.send("openapi.yaml", "GET", "/openapi.yaml", "/openapi.yaml", expect: 200)
        try record.send("index", "GET", "/", "/", expect: 200)
        try record.send("console page", "GET", "/", "/", ["-H", "Accept: text/html"], expect: 200)
        try record.send("console file", "GET", "/console/{asset}", "/console/app.js", expect: 200)
        try record.send("catalog", "GET", "/catalog", "/catalog", expect: 200)

        let report = try Self.check(record.exchanges)
        #expect(report.checked == record.exchanges.count)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")

        // The check can fail: a succeeded job with the camelCase key outputs once had is reported.
        var planted = try #require(record.exchanges.first { $0.label == "long-polled succeeded job" })
        planted.label = "planted"
        planted.body = planted.body.replacingOccurrences(of: #""content_type""#, with: #""contentType""#)
        #expect(try Self.check([planted]).problems.contains { $0.hasPrefix("planted: ") })
    }

    /// Jobs with inputs fetched from URLs and outputs delivered to them (`input_sources`, `deliveries`), a
    /// fetch that failed, and the refusals of the egress policy.
    @Test func urlInputsAndDeliveriesMatchTheSchemas() throws {
        let files = try Scratch("live-egress")
        try FileManager.default.copyItem(atPath: try Fixtures.h264AacMP4(), toPath: files.file("talk.mp4"))
        let peer = try PeerProcess.script("file_server.py", [files.path])
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let record = Recorder(server)
        let fetched = try record.send(
            "fetching job", "POST", "/jobs/{kind}", "/jobs/remux?format=mkv",
            [
                "--url-query", "input_url=\(peer.url)/talk.mp4", "--url-query", "output_url=\(peer.url)/put/out.mkv",
                "--url-query", "output_urls={\"none.bin\":\"\(peer.url)/put/none.bin\"}",
            ], expect: 202)
        let id = try #require(fetched.json["id"] as? String)
        var states: [String] = []
        let deadline = Date().addingTimeInterval(60)
        repeat {
            let job = try Curl.run(server.url("/jobs/\(id)?wait=10")).json
            states = (job["deliveries"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "" }
        } while states != ["delivered", "failed"] && Date() < deadline
        #expect(states == ["delivered", "failed"])
        try record.send("fetched and delivered job", "GET", "/jobs/{id}", "/jobs/\(id)", expect: 200)
        let missing = try record.send(
            "failed fetch", "POST", "/jobs/{kind}", "/jobs/remux?wait=60",
            ["--url-query", "input_url=\(peer.url)/gone.mp4"], expect: 200)
        #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "input_http_error")
        try record.send(
            "input refused", "POST", "/jobs/{kind}", "/jobs/remux",
            ["--url-query", "input_url=http://169.254.169.254/"], expect: 400)
        try record.send(
            "output refused", "PUT", "/jobs/{kind}", "/jobs/remux",
            ["-T", files.file("talk.mp4"), "--url-query", "output_url=http://10.0.0.1/x"], expect: 400)
        let report = try Self.check(record.exchanges)
        #expect(report.checked == record.exchanges.count)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    @Test func everyErrorMatchesTheSchemas() throws {
        let scratch = try Scratch("live-errors")
        let tokens = try scratch.write("tokens", Array("ci:ci-token-0123456789\n".utf8))
        let server = try ServerProcess(["--max-upload", "1M", "--auth-tokens", tokens])
        let record = Recorder(server)
        let auth = ["-H", "Authorization: Bearer ci-token-0123456789"]
        let mp4 = try Fixtures.h264AacMP4()
        let job = try record.send(
            "job", "PUT", "/jobs/{kind}", "/jobs/remux?wait=60", auth + ["-T", mp4], expect: 200)
        let id = try #require(job.json["id"] as? String)
        let missing = "/jobs/AAAAAAAAAAAAAAAAAAAAAA"

        try record.send("unauthorized", "GET", "/jobs", "/jobs", expect: 401)
        try record.send("unknown kind", "POST", "/jobs/{kind}", "/jobs/sharpen", auth + ["-T", mp4], expect: 404)
        try record.send("bad option", "PUT", "/jobs/{kind}", "/jobs/remux?format=avi", auth + ["-T", mp4], expect: 400)
        try record.send("bad wait", "GET", "/jobs/{id}", "/jobs/\(id)?wait=soon", auth, expect: 400)
        try record.send("bad cursor", "GET", "/jobs", "/jobs?cursor=garbage", auth, expect: 400)
        try record.send("no job", "GET", "/jobs/{id}", missing, auth, expect: 404)
        try record.send("no job to delete", "DELETE", "/jobs/{id}", missing, auth, expect: 404)
        try record.send(
            "no output", "GET", "/jobs/{id}/outputs/{name}", "/jobs/\(id)/outputs/none.mp4", auth,
            expect: 404)
        try record.send(
            "escaping output name", "GET", "/jobs/{id}/outputs/{name}", "/jobs/\(id)/outputs/%2e%2e/job.json",
            auth + ["--path-as-is"], expect: 400)
        try record.send("no log", "GET", "/jobs/{id}/log", missing + "/log", auth, expect: 404)
        try record.send("no events", "GET", "/jobs/{id}/events", missing + "/events", auth, expect: 404)
        try record.send("events without a token", "GET", "/events", "/events", expect: 401)
        try record.send("no console file", "GET", "/console/{asset}", "/console/none.js", expect: 404)
        try record.send(
            "range", "GET", "/jobs/{id}/output", "/jobs/\(id)/output", auth + ["-H", "Range: bytes=999999999-"],
            expect: 416)
        let random = try scratch.write("random.bin", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
        try record.send("unsupported format", "PUT", "/jobs/{kind}", "/jobs/remux", auth + ["-T", random], expect: 415)
        try record.send(
            "not form data", "POST", "/probe", "/probe",
            auth + ["-H", "Content-Type: multipart/mixed; boundary=x", "--data-binary", "--x--"], expect: 415)
        try record.send(
            "empty probe", "POST", "/probe", "/probe", auth + ["-H", "Content-Type: application/octet-stream"],
            expect: 400)
        try record.send(
            "too large", "PUT", "/jobs/{kind}", "/jobs/remux",
            auth + ["-H", "Content-Length: 2000000", "--data-binary", "x"], expect: 413)
        try record.send(
            "target too long", "GET", "/jobs", "/jobs?state=" + String(repeating: "a", count: 9000), auth,
            expect: 414)
        try record.send(
            "headers too large", "GET", "/jobs", "/jobs",
            auth + ["-H", "X-Padding: " + String(repeating: "p", count: 90_000)],
            expect: 431)
        try record.send(
            "idempotency key", "PUT", "/jobs/{kind}", "/jobs/remux",
            auth + ["-H", "Idempotency-Key: k1", "-T", mp4], expect: 202)
        try record.send(
            "idempotency mismatch", "PUT", "/jobs/{kind}", "/jobs/remux?format=mkv",
            auth + ["-H", "Idempotency-Key: k1", "-T", mp4], expect: 409)

        let report = try Self.check(record.exchanges)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    /// A full queue (429 with `Retry-After`) and a failed precondition (412) are answered as the spec says
    /// too. (A 405 answers an operation the spec does not have, so it has no schema to meet.)
    @Test func refusalsUnderLoadMatchTheSchemas() throws {
        let server = try ServerProcess(["--workers", "1", "--max-queued", "1"])
        let record = Recorder(server)
        let finished = try record.send(
            "job", "PUT", "/jobs/{kind}", "/jobs/remux?wait=60", ["-T", try Fixtures.h264AacMP4()], expect: 200)
        let id = try #require(finished.json["id"] as? String)
        try record.send(
            "precondition failed", "GET", "/jobs/{id}/output", "/jobs/\(id)/output", ["-H", "If-Match: \"0000\""],
            expect: 412)
        let long = try APIBehaviourTests.longPCM()
        // The running job's worker is held, so the queue stays full however slowly the uploads go.
        let (_, worker) = try IsolationTests.heldWorker(server, ["-T", long])
        defer { kill(worker, SIGCONT) }
        try record.send("queued", "PUT", "/jobs/{kind}", "/jobs/encode", ["-T", long], expect: 202)
        let full = try record.send("queue full", "PUT", "/jobs/{kind}", "/jobs/encode", ["-T", long], expect: 429)
        #expect(full.headers["retry-after"] != nil)

        let report = try Self.check(record.exchanges)
        #expect(report.checked == record.exchanges.count)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    /// tus's answers, from the upload's state to every refusal of `/uploads`.
    @Test func resumableUploadsMatchTheSchemas() throws {
        let scratch = try Scratch("live-uploads")
        let server = try ServerProcess()
        let record = Recorder(server)
        let tus = ["-H", "Tus-Resumable: 1.0.0"]
        let created = try record.send(
            "created upload", "POST", "/uploads", "/uploads", tus + ["-H", "Upload-Length: 8"], expect: 201)
        let location = try #require(created.headers["location"])
        let chunk = try scratch.write("chunk", Array("abcd".utf8))
        let patch = tus + ["-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(chunk)"]
        try record.send("chunk", "PATCH", "/uploads/{id}", location, patch + ["-H", "Upload-Offset: 0"], expect: 204)
        try record.send("upload state", "GET", "/uploads/{id}", location, expect: 200)
        try record.send(
            "offset mismatch", "PATCH", "/uploads/{id}", location, patch + ["-H", "Upload-Offset: 0"], expect: 409)
        try record.send(
            "checksum mismatch", "PATCH", "/uploads/{id}", location,
            patch + ["-H", "Upload-Offset: 4", "-H", "Upload-Checksum: sha1 AAAAAAAAAAAAAAAAAAAAAAAAAAA="], expect: 460)
        try record.send(
            "no version", "PATCH", "/uploads/{id}", location,
            ["-H", "Content-Type: application/offset+octet-stream", "-H", "Upload-Offset: 4"], expect: 412)
        try record.send(
            "chunk type", "PATCH", "/uploads/{id}", location,
            tus + ["-H", "Upload-Offset: 4", "-H", "Content-Type: text/plain", "--data-binary", "@\(chunk)"],
            expect: 415)
        try record.send(
            "bad metadata", "POST", "/uploads", "/uploads",
            tus + ["-H", "Upload-Length: 8", "-H", "Upload-Metadata: kind !!"], expect: 400)
        try record.send(
            "too large", "POST", "/uploads", "/uploads", tus + ["-H", "Upload-Length: 99999999999999"], expect: 413)
        try record.send("terminated", "DELETE", "/uploads/{id}", location, tus, expect: 204)
        try record.send("gone", "GET", "/uploads/{id}", location, expect: 404)
        let report = try Self.check(record.exchanges)
        #expect(report.checked == record.exchanges.count)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
