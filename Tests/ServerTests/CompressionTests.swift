import Foundation
import TestSupport
import Testing

/// gzip of text responses on a real server, as curl asks for it; downloads stay untouched.
@Suite(.serialized) struct CompressionTests {
    static func gunzip(_ data: Data, _ scratch: Scratch) throws -> Data {
        let path = try scratch.write("body-\(UUID().uuidString).gz", [UInt8](data))
        return try Command.run("gzip", ["-dc", path]).stdout
    }

    @Test func textBodiesAreGzippedWhenAccepted() throws {
        let scratch = try Scratch("gzip")
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        for path in ["/openapi.yaml", "/metrics", "/jobs", "/jobs/\(id)/log"] {
            let plain = try Curl.run(server.url(path))
            #expect(plain.headers["content-encoding"] == nil, "\(path)")
            #expect(plain.headers["vary"] == "Accept-Encoding", "\(path)")
            let compressed = try Curl.run(server.url(path), ["--compressed"])
            #expect(compressed.status == 200)
            if plain.body.count >= 1024 {
                #expect(compressed.headers["content-encoding"] == "gzip", "\(path)")
                #expect(compressed.headers["vary"] == "Accept-Encoding")
                let onWire = Int(compressed.headers["content-length"] ?? "") ?? 0
                #expect(onWire > 0 && onWire < plain.body.count, "\(path): \(onWire) vs \(plain.body.count)")
            }
            if path != "/metrics" {
                #expect(compressed.body == plain.body, "curl --compressed decodes to the same body: \(path)")
            }
        }
        let spec = try Curl.run(server.url("/openapi.yaml"))
        let raw = try Curl.run(server.url("/openapi.yaml"), ["-H", "Accept-Encoding: gzip"])
        #expect(raw.headers["content-encoding"] == "gzip")
        #expect(try Self.gunzip(raw.body, scratch) == spec.body)
        let head = try Curl.run(server.url("/openapi.yaml"), ["-I", "-H", "Accept-Encoding: gzip"])
        #expect(head.headers["content-length"] == String(raw.body.count), "HEAD announces the gzip length")
    }

    @Test func refusedOrUnknownEncodingsGetIdentity() throws {
        let server = try ServerProcess()
        let cases: [(String, String?)] = [
            ("gzip;q=0", nil), ("identity", nil), ("br", nil), ("*;q=0", nil), ("gzip; q=0.000", nil),
            ("br, *;q=0.5", "gzip"), ("deflate, gzip;q=0.2", "gzip"), ("GZIP", "gzip"), ("*, gzip;q=0", nil),
        ]
        for (accept, expected) in cases {
            let reply = try Curl.run(server.url("/openapi.yaml"), ["-H", "Accept-Encoding: \(accept)"])
            #expect(reply.status == 200)
            #expect(reply.headers["content-encoding"] == expected, "Accept-Encoding: \(accept)")
        }
        let tiny = try Curl.run(server.url("/healthz"), ["-H", "Accept-Encoding: gzip"])
        #expect(tiny.headers["content-encoding"] == nil, "bodies under 1 KiB are sent as they are")
        #expect(tiny.json["status"] as? String == "ok")
    }

    @Test func downloadsAreNeverCompressed() throws {
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/remux?wait=60&format=mkv"), ["-T", try Fixtures.h264AacMP4()]).json
        let id = try #require(job["id"] as? String)
        let outputs = try #require(job["outputs"] as? [[String: Any]])
        let sha = try #require(outputs.first?["sha256"] as? String)
        let size = try #require(outputs.first?["size"] as? Int)
        let whole = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "Accept-Encoding: gzip"])
        #expect(whole.status == 200)
        #expect(whole.headers["content-encoding"] == nil)
        #expect(whole.headers["etag"] == "\"\(sha)\"")
        #expect(whole.body.count == size)
        let part = try Curl.run(server.url("/jobs/\(id)/output"), ["-H", "Accept-Encoding: gzip", "-r", "0-99"])
        #expect(part.status == 206 && part.body.count == 100 && part.headers["content-encoding"] == nil)
        let cached = try Curl.run(
            server.url("/jobs/\(id)/output"), ["-H", "Accept-Encoding: gzip", "-H", "If-None-Match: \"\(sha)\""])
        #expect(cached.status == 304)
        #expect(cached.headers["etag"] == "\"\(sha)\"")
    }
}
