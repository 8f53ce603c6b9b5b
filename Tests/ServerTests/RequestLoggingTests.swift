import Foundation
import TestSupport
import Testing

/// Logs on a real server's stderr (`--log-format text|json`), `X-Request-Id` on every response, and no
/// token in any log line.
@Suite(.serialized) struct RequestLoggingTests {
    /// The log's lines, read after the server has written them (each line is one `write(2)`).
    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func objects(_ path: String) throws -> [[String: Any]] {
        try lines(path).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test func jsonLinesCarryRequestsAndJobTransitions() throws {
        let scratch = try Scratch("log-json")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--log-format", "json"], logFile: log)
        let job = try Curl.run(
            server.url("/jobs/remux?wait=60&format=mkv"),
            ["-T", try Fixtures.h264AacMP4(), "-H", "X-Request-Id: submit-1"])
        let id = try #require(job.json["id"] as? String)
        #expect(job.headers["x-request-id"] == "submit-1")
        let cut = try scratch.write(
            "cut.mp4", [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4())).prefix(40_000)))
        let failed = try #require(try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", cut]).json["id"] as? String)
        let shown = try Curl.run(server.url("/jobs/\(id)"))
        server.stop()

        let objects = try Self.objects(log)
        #expect(!objects.isEmpty)
        for object in objects {
            #expect(object["timestamp"] is String && object["level"] is String && object["message"] is String)
            #expect(object["metadata"] is [String: Any])
        }
        let requests = objects.filter { $0["message"] as? String == "request" }.compactMap {
            $0["metadata"] as? [String: Any]
        }
        let submit = try #require(requests.first { $0["request_id"] as? String == "submit-1" })
        #expect(submit["method"] as? String == "PUT")
        #expect(submit["path"] as? String == "/jobs/remux", "the query string stays out of the log")
        #expect(submit["route"] as? String == "/jobs/{kind}")
        #expect(submit["status"] as? Int == 200)
        #expect(submit["bytes"] as? Int == job.body.count)
        #expect((submit["duration_ms"] as? Double ?? -1) >= 0)
        let show = try #require(requests.first { $0["request_id"] as? String == shown.headers["x-request-id"] })
        #expect(show["path"] as? String == "/jobs/\(id)")
        #expect(show["route"] as? String == "/jobs/{id}")

        let transitions = objects.compactMap { $0["metadata"] as? [String: Any] }.filter { $0["to"] != nil }
        let mine = transitions.filter { $0["job_id"] as? String == id }.map {
            "\($0["from"] as? String ?? "?")→\($0["to"] as? String ?? "?")"
        }
        #expect(mine == ["new→queued", "queued→running", "running→succeeded"])
        let end = try #require(transitions.last { $0["job_id"] as? String == failed })
        #expect(end["to"] as? String == "failed")
        #expect(end["kind"] as? String == "remux")
        #expect(end["error_code"] as? String == "truncated_input")
    }

    @Test func textLinesAreOneEventEach() throws {
        let scratch = try Scratch("log-text")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--log-level", "info"], logFile: log)
        let reply = try Curl.run(server.url("/jobs?limit=5"), ["-H", "X-Request-Id: list-7"])
        #expect(reply.status == 200)
        server.stop()
        let line = try #require(try Self.lines(log).first { $0.contains("request_id=list-7") })
        #expect(line.contains(" info mediad.http: request "))
        for field in ["method=GET", "path=/jobs", "status=200", "route=/jobs", "bytes=\(reply.body.count)"] {
            #expect(line.contains(field), "\(field) in \(line)")
        }
        #expect(!line.contains("limit=5"))
    }

    @Test func requestIdIsEchoedWhenSaneAndGeneratedOtherwise() throws {
        let scratch = try Scratch("request-id")
        let tokens = try scratch.write("tokens", Array("ci:ci-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        let echoed = try Curl.run(server.url("/healthz"), ["-H", "X-Request-Id: Abc.def_123-4"])
        #expect(echoed.headers["x-request-id"] == "Abc.def_123-4")
        let long = String(repeating: "a", count: 129)
        for bad in ["has space", "semi;colon", long, "ünï"] {
            let reply = try Curl.run(server.url("/healthz"), ["-H", "X-Request-Id: \(bad)"])
            let generated = try #require(reply.headers["x-request-id"])
            #expect(generated != bad && generated.count == 16, "\(bad) → \(generated)")
        }
        var seen: Set<String> = []
        for path in ["/healthz", "/jobs", "/nothing", "/jobs/remux"] {
            let reply = try Curl.run(server.url(path))
            #expect(reply.status == (path == "/healthz" ? 200 : 401))
            let generated = try #require(reply.headers["x-request-id"], "\(path)")
            #expect(generated.count == 16 && generated.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) })
            seen.insert(generated)
        }
        #expect(seen.count == 4, "ids differ")
        let notFound = try Curl.run(
            server.url("/nothing"), ["-H", "Authorization: Bearer ci-token-0123456789", "-H", "X-Request-Id: nf"])
        #expect(notFound.status == 404 && notFound.headers["x-request-id"] == "nf")
        let smuggled = try ConnectionTests().rawExchange(
            port: server.port, "POST /probe HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"
        )
        #expect(smuggled.hasPrefix("HTTP/1.1 400"))
        #expect(smuggled.lowercased().contains("\r\nx-request-id: "), "protocol errors carry an id too")
    }

    @Test func tokensNeverReachTheLog() throws {
        let scratch = try Scratch("log-tokens")
        let token = "sekrit-token-0123456789abcdef"
        let tokens = try scratch.write("tokens", Array("ci:\(token)\nroot:root-\(token):admin\n".utf8))
        for format in ["text", "json"] {
            let log = scratch.file("server-\(format).log")
            let server = try ServerProcess(["--auth-tokens", tokens, "--log-format", format], logFile: log)
            let bearer = ["-H", "Authorization: Bearer \(token)"]
            let job = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", try Fixtures.h264AacMP4()] + bearer)
            let id = try #require(job.json["id"] as? String)
            #expect(try Curl.run(server.url("/jobs/\(id)/output"), bearer).status == 200)
            #expect(try Curl.run(server.url("/jobs/\(id)/log"), bearer).status == 200)
            #expect(try Curl.run(server.url("/metrics"), ["-H", "Authorization: Bearer root-\(token)"]).status == 200)
            #expect(try Curl.run(server.url("/jobs"), ["-H", "Authorization: Bearer \(token)x"]).status == 401)
            // A token pasted into a query string (refused as an unknown parameter) stays out of the log too.
            #expect(try Curl.run(server.url("/jobs?token=\(token)"), bearer).status == 400)
            server.stop()
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(text.contains(id), "the log has the job's lines")
            #expect(try Self.lines(log).filter { $0.contains("request") }.count >= 6)
            #expect(!text.contains("sekrit"), "a token reached the \(format) log")
            #expect(!text.lowercased().contains("bearer"))
        }
    }

    @Test func refusesUnknownLogFormatsAndLevels() throws {
        let scratch = try Scratch("log-flags")
        for arguments in [["--log-format", "xml"], ["--log-level", "loud"]] {
            let output = try Command.run(
                ServerProcess.binary, ["serve", "--port", "0", "--data-dir", scratch.file("data")] + arguments,
                allowFailure: true)
            #expect(output.status != 0)
            #expect(output.stderr.contains(arguments[0]))
        }
    }
}
