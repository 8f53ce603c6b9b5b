import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import MediadRuntime
@testable import MediadHTTP
@testable import Server

/// The parts of logging, request ids and compression that need no server.
@Suite struct ObservabilityUnitTests {
    @Test(arguments: [
        ("gzip", true), ("x-gzip", true), ("GZip", true), ("gzip;q=1.0", true), ("gzip ; q=0.001", true),
        ("gzip;q=0", false), ("gzip;q=0.0", false), ("gzip;q=0.000", false), ("deflate, br", false), ("", false),
        ("*", true), ("*;q=0", false), ("*, gzip;q=0", false), ("gzip;q=0, *", false), ("br;q=1, *;q=0.1", true),
        ("identity", false), ("gzip;q=abc", false), ("gzip;q=1.5", false), ("gzip;q=-1", false),
        ("gzip;level=9", true), ("br, gzip;q=0.5", true), ("gzip;q=0, gzip;q=0.5", true), (" , ,gzip", true),
    ])
    func acceptEncodingParser(header: String, accepts: Bool) {
        #expect(AcceptEncoding.acceptsGzip([header]) == accepts, "\(header)")
    }

    @Test func acceptEncodingAcrossSeveralHeaderLines() {
        #expect(AcceptEncoding.acceptsGzip(["br", "gzip"]))
        #expect(!AcceptEncoding.acceptsGzip(["*", "gzip;q=0"]))
        #expect(!AcceptEncoding.acceptsGzip([]))
    }

    @Test func requestIds() {
        #expect(RequestID.resolve("abc-DEF_1.2") == "abc-DEF_1.2")
        #expect(RequestID.resolve(String(repeating: "x", count: 128)).count == 128)
        for bad in [nil, "", "a b", "a\nb", "<script>", String(repeating: "x", count: 129), "é"] {
            let id = RequestID.resolve(bad)
            #expect(id.count == 16 && RequestID.isSane(id) && id != bad)
        }
        #expect(Set((0..<1000).map { _ in RequestID.generate() }).count == 1000)
    }

    @Test func gzipRoundTripsThroughTheGzipTool() throws {
        let scratch = try Scratch("gzip-unit")
        let text = Array((0..<5000).map { "line \($0): \(String(repeating: "abc", count: $0 % 17))\n" }.joined().utf8)
        let compressed = try #require(Gzip.compress(text))
        #expect(compressed.count < text.count / 4)
        #expect(compressed.prefix(2) == [0x1F, 0x8B], "a gzip member")
        let path = try scratch.write("text.gz", compressed)
        #expect(try Command.run("gzip", ["-dc", path]).stdout == Data(text))
        #expect(Gzip.compress([]) == nil)
    }

    @Test func textLines() {
        let handler = LogLineHandler(label: "mediad.http", format: .text, level: .info) { _ in }
        let line = handler.line(
            level: .info, message: "request",
            metadata: ["path": "/jobs/a b", "status": .stringConvertible(200), "note": "say \"hi\"\nbye"],
            date: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(
            line == "2027-01-15T08:00:00.500Z info mediad.http: request note=\"say \\\"hi\\\"\\nbye\" "
                + "path=\"/jobs/a b\" status=200\n")
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test func jsonLinesParseAndKeepTypes() throws {
        let handler = LogLineHandler(label: "mediad.jobs", format: .json, level: .info) { _ in }
        let line = handler.line(
            level: .warning, message: "job running → failed \u{1}",
            metadata: [
                "attempt": .stringConvertible(2), "ms": .stringConvertible(1.5), "ok": .stringConvertible(false),
                "code": "truncated_input", "list": .array(["a", .stringConvertible(3)]),
                "nested": .dictionary(["k": "v"]),
            ],
            date: Date(timeIntervalSince1970: 0))
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["timestamp"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["logger"] as? String == "mediad.jobs")
        #expect(object["message"] as? String == "job running → failed \u{1}")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["attempt"] as? Int == 2)
        #expect(metadata["ms"] as? Double == 1.5)
        #expect(metadata["ok"] as? Bool == false)
        #expect(metadata["code"] as? String == "truncated_input")
        #expect((metadata["list"] as? [Any])?.count == 2)
        #expect((metadata["nested"] as? [String: String]) == ["k": "v"])
    }

    @Test func handlerFiltersByLevelAndMergesMetadata() {
        let captured = Mutex<[String]>([])
        var logger = Logger(label: "test") { label in
            LogLineHandler(label: label, format: .text, level: .notice) { line in captured.withLock { $0.append(line) }
            }
        }
        logger[metadataKey: "replica"] = "a"
        logger.info("dropped")
        logger.notice("kept", metadata: ["job_id": "j1"])
        logger.error("also kept", metadata: ["replica": "b"])
        let lines = captured.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(" notice test: kept job_id=j1 replica=a\n"))
        #expect(lines[1].hasSuffix(" error test: \"also kept\" replica=b\n"))
    }
}
