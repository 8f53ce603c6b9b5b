import Foundation
import NIOHTTP1
import TestSupport
import Testing

@testable import MediadHTTP
@testable import Server

/// Numbers a client controls — byte ranges, body lengths, chunk sizes — at and past the limits of 64-bit
/// integers: each gets a 2xx or a 4xx, never a trap. One `Range` header used to stop the whole server.
@Suite(.serialized) struct ExtremeNumberTests {
    @Test func byteRangesAtTheEdgesOfInt64() throws {
        let size: Int64 = 1000
        let satisfiable: [(String, Int64, Int64)] = [
            ("bytes=0-9223372036854775807", 0, 1000), ("bytes=0-99999999999999999999999999999", 0, 1000),
            ("bytes=999-9223372036854775807", 999, 1000), ("bytes=-9223372036854775807", 0, 1000),
            ("bytes=-99999999999999999999999", 0, 1000), ("bytes=10-", 10, 1000), ("bytes=-10", 990, 1000),
            ("BYTES=5-9", 5, 10), ("bytes=0-0", 0, 1),
        ]
        for (header, start, end) in satisfiable {
            let range = try #require(try ByteRange(header, size: size), "\(header)")
            #expect((range.start, range.end) == (start, end), "\(header)")
        }
        for header in [
            "bytes=1000-", "bytes=9223372036854775807-9223372036854775807", "bytes=99999999999999999999-", "bytes=-0",
        ] {
            #expect(throws: ServiceError.self, "\(header)") { try ByteRange(header, size: size) }
        }
        let ignored = [
            "bytes=+5-10", "bytes=-+5", "bytes=5--10", "bytes=10-5", "bytes= 5-10", "bytes=0-1,5-6", "items=0-5",
            "bytes=", "bytes=-", "bytes=0x10-20", "bytes=٣-5",
        ]
        for header in ignored { #expect(try ByteRange(header, size: size) == nil, "\(header)") }
        #expect(throws: ServiceError.self) { try ByteRange("bytes=0-", size: 0) }
        #expect(throws: ServiceError.self) { try ByteRange("bytes=-5", size: 0) }
    }

    /// Random range headers built from extreme numbers and stray characters: every answer is the whole
    /// file, a range inside it, or 416.
    @Test func fuzzedRangeHeadersStayInsideTheFile() throws {
        var random = SeededBytes(seed: 0x5eed_0010)
        let pieces = [
            "0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
            String(repeating: "9", count: 40), "-", "", " ", "+", ",", "bytes=", "=", "999", "1000", "1001",
        ]
        for _ in 0..<5000 {
            let size = Int64.random(in: 0...2000, using: &random)
            let count = Int.random(in: 1...5, using: &random)
            let header =
                "bytes=" + (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            do {
                if let range = try ByteRange(header, size: size) {
                    #expect(range.start >= 0 && range.start < range.end && range.end <= size, "\(header) of \(size)")
                }
            } catch let error as ServiceError {
                #expect(error.status == .rangeNotSatisfiable, "\(header)")
            }
        }
    }

    @Test func extremeRangesLengthsAndChunksAgainstTheServer() throws {
        let scratch = try Scratch("extreme")
        let pcm = scratch.file("tone.pcm")
        try Command.run("truncate", ["-s", "96000", pcm])
        let server = try ServerProcess(["--max-upload", "2M"])
        let job = try Curl.run(server.url("/jobs/encode?format=wav&sample_rate=48000&wait=60"), ["-T", pcm]).json
        let id = try #require(job["id"] as? String, "\(job)")
        let output = server.url("/jobs/\(id)/output")
        for method in ["GET", "HEAD"] {
            for header in [
                "bytes=0-9223372036854775807", "bytes=-9223372036854775807",
                "bytes=0-1" + String(repeating: "0", count: 30),
            ] {
                let reply = try Curl.run(
                    output, ["-X", method, "-H", "Range: \(header)"] + (method == "HEAD" ? ["-I"] : []))
                #expect(reply.status == 206, "\(method) \(header): \(reply.rawHeaders)")
                #expect(reply.headers["content-range"]?.hasPrefix("bytes 0-") == true, "\(reply.rawHeaders)")
            }
            let beyond = try Curl.run(
                output, ["-X", method, "-H", "Range: bytes=9223372036854775807-"] + (method == "HEAD" ? ["-I"] : []))
            #expect(beyond.status == 416, "\(method): \(beyond.rawHeaders)")
        }
        // Lengths past Int64 are refused from the head; chunk sizes that fit 64 bits are streamed and cut at
        // --max-upload, longer ones are malformed.
        let lengths = [
            "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
            "99999999999999999999999",
        ]
        for length in lengths {
            let answer = try Python.exchange(
                port: server.port, "PUT /jobs/remux HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n",
                padding: 100)
            #expect(answer.hasPrefix("HTTP/1.1 413") || answer.hasPrefix("HTTP/1.1 400"), "length \(length): \(answer)")
        }
        for size in ["FFFFFFFFFFFFFFFF", "7FFFFFFFFFFFFFFF", "10000000000000000", "FFFFFFFFFFFFFFFFFFFFFFFF"] {
            let answer = try Python.exchange(
                port: server.port,
                "PUT /jobs/remux HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n",
                padding: 3 << 20)
            #expect(answer.hasPrefix("HTTP/1.1 413") || answer.hasPrefix("HTTP/1.1 400"), "chunk \(size): \(answer)")
        }
        #expect(try Curl.run(server.url("/healthz")).status == 200)
        #expect(server.process.isRunning)
    }
}
