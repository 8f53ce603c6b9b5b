import Foundation
import TestSupport
import Testing

/// RFC 9110 and 9111 on a live server, with curl: `Date`, `Cache-Control`, conditional requests
/// (`If-None-Match` weak, `If-Match`, `If-Range`), `Allow` and download names that are not ASCII.
@Suite(.serialized) struct HTTPSemanticsTests {
    /// A remux that has succeeded, and its job JSON.
    static func finishedJob(_ server: ServerProcess, path: String = "/jobs/remux?format=mkv&wait=60") throws
        -> [String: Any]
    {
        let job = try Curl.run(server.url(path), ["-T", try Fixtures.h264AacMP4()]).json
        #expect(job["state"] as? String == "succeeded")
        return job
    }

    /// What an IMF-fixdate in a `Date` field says, or nil when it is not one.
    static func date(_ text: String?) -> Date? {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return text.flatMap { format.date(from: $0) }
    }

    @Test func everyResponseIsDated() throws {
        let server = try ServerProcess()
        let id = try #require(try Self.finishedJob(server)["id"] as? String)
        let replies = [
            try Curl.run(server.url("/healthz")), try Curl.run(server.url("/jobs/\(id)")),
            try Curl.run(server.url("/jobs/\(id)/output")), try Curl.run(server.url("/jobs")),
            try Curl.run(server.url("/nothing")), try Curl.run(server.url("/healthz"), ["-X", "POST"]),
        ]
        for reply in replies {
            let date = try #require(Self.date(reply.headers["date"]), "\(reply.rawHeaders)")
            #expect(abs(date.timeIntervalSinceNow) < 60)
        }
        // Requests the HTTP parser refuses are dated too.
        let malformed = try Python.exchange(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        #expect(malformed.hasPrefix("HTTP/1.1 400"))
        #expect(malformed.lowercased().contains("\r\ndate: "))
    }

    @Test func cachesMayKeepOutputsButMustRevalidateTheRest() throws {
        let server = try ServerProcess(["--retention", "2h"])
        let id = try #require(try Self.finishedJob(server)["id"] as? String)
        #expect(try Curl.run(server.url("/jobs/\(id)")).headers["cache-control"] == "no-cache")
        #expect(try Curl.run(server.url("/jobs")).headers["cache-control"] == "no-cache")
        #expect(try Curl.run(server.url("/jobs/nope")).headers["cache-control"] == "no-cache")
        let output = try #require(try Curl.run(server.url("/jobs/\(id)/output")).headers["cache-control"])
        let maxAge = output.firstMatch(of: /^max-age=([0-9]+), immutable$/).flatMap { Int($0.1) }
        #expect(maxAge.map { (7000...7200).contains($0) } == true, "\(output)")

        let scratch = try Scratch("cache")
        let tokens = try scratch.write("tokens", Array("alice:alice-token-0123456789\n".utf8))
        let tokened = try ServerProcess(["--auth-tokens", tokens])
        let bearer = ["-H", "Authorization: Bearer alice-token-0123456789"]
        let job = try Curl.run(tokened.url("/jobs/remux?wait=60"), bearer + ["-T", try Fixtures.h264AacMP4()]).json
        let privateID = try #require(job["id"] as? String)
        let privateOutput = try Curl.run(tokened.url("/jobs/\(privateID)/output"), bearer)
        #expect(privateOutput.headers["cache-control"]?.hasPrefix("private, max-age=") == true)
    }

    @Test func answersConditionalDownloads() throws {
        let server = try ServerProcess()
        let id = try #require(try Self.finishedJob(server)["id"] as? String)
        let url = server.url("/jobs/\(id)/output")
        let whole = try Curl.run(url)
        let etag = try #require(whole.headers["etag"])

        let weak = try Curl.run(url, ["-H", "If-None-Match: \"other\", W/\(etag)"])
        #expect(weak.status == 304)
        #expect(weak.body.isEmpty)
        #expect(weak.headers["etag"] == etag)
        #expect(weak.headers["cache-control"] == whole.headers["cache-control"])
        #expect(weak.headers["content-type"] == nil)
        #expect(weak.headers["content-disposition"] == nil)
        #expect(weak.headers["date"] != nil)

        let stale = try Curl.run(url, ["-H", "Range: bytes=0-9", "-H", "If-Range: \"0000\""])
        #expect(stale.status == 200)
        #expect(stale.body == whole.body)
        #expect(stale.headers["content-range"] == nil)
        let weakRange = try Curl.run(url, ["-H", "Range: bytes=0-9", "-H", "If-Range: W/\(etag)"])
        #expect(weakRange.status == 200)
        let current = try Curl.run(url, ["-H", "Range: bytes=0-9", "-H", "If-Range: \(etag)"])
        #expect(current.status == 206)
        #expect(current.body == whole.body.prefix(10))

        let mismatch = try Curl.run(url, ["-H", "If-Match: \"0000\""])
        #expect(mismatch.status == 412)
        #expect(mismatch.errorCode == "precondition_failed")
        #expect(try Curl.run(url, ["-H", "If-Match: W/\(etag)"]).status == 412)
        let match = try Curl.run(url, ["-H", "If-Match: \"0000\", \(etag)"])
        #expect(match.status == 200)
        #expect(match.body == whole.body)

        // Job JSON has no entity tag: If-Match with a tag fails, and a DELETE that fails it changes nothing.
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-H", "If-Match: \(etag)"]).status == 412)
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-H", "If-Match: *"]).status == 200)
        let delete = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE", "-H", "If-Match: \"0000\""])
        #expect(delete.status == 412)
        #expect(try Curl.run(server.url("/jobs/\(id)")).status == 200)
        let create = try Curl.run(
            server.url("/jobs/remux"), ["-T", try Fixtures.h264AacMP4(), "-H", "If-Match: *"])
        #expect(create.status == 412)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").count == 1)
    }

    @Test func allowListsHeadWhereGetIsServed() throws {
        let server = try ServerProcess()
        #expect(try Curl.run(server.url("/healthz"), ["-X", "POST"]).headers["allow"] == "GET, HEAD")
        let output = try Curl.run(server.url("/jobs/AAAAAAAAAAAAAAAAAAAAAA/output"), ["-X", "DELETE"])
        #expect(output.status == 405)
        // `PUT /jobs/{kind}/{filename}` has this shape too, but a job id is no kind: only GET and HEAD serve it
        // (and OPTIONS, the CORS preflight).
        #expect(output.headers["allow"].map { Set($0.components(separatedBy: ", ")) } == ["GET", "HEAD", "OPTIONS"])
        #expect(try Curl.run(server.url("/probe"), ["-X", "GET"]).headers["allow"] == "POST, PUT")
    }

    @Test func namesDownloadsInUTF8WithAnASCIIFallback() throws {
        let server = try ServerProcess()
        let job = try Self.finishedJob(server, path: "/jobs/remux/na%C3%AFve%20talk.mp4?format=mkv&wait=60")
        #expect(job["source_name"] as? String == "naïve talk.mp4")
        let id = try #require(job["id"] as? String)
        let reply = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(
            reply.headers["content-disposition"]
                == "attachment; filename=\"naive talk.mkv\"; filename*=UTF-8''na%C3%AFve%20talk.mkv")
        // curl's -J reads only `filename`, so it saves the ASCII stand-in.
        let scratch = try Scratch("utf8-name")
        try Command.run("sh", ["-c", "cd '\(scratch.path)' && curl -sSOJ '\(server.url("/jobs/\(id)/output"))'"])
        #expect(try scratch.listing() == ["naive talk.mkv"])
    }
}
