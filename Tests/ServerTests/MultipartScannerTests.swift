import NIOCore
import TestSupport
import Testing

@testable import MediadHTTP

/// `MultipartScanner` on bodies cut into chunks at every place: what it hands on must not depend on where
/// the network split the body. The file part's bytes are full of near misses (CR, CRLF, `CRLF--`, the
/// delimiter with its last byte changed) around which a search that lost its place would go wrong.
@Suite struct MultipartScannerTests {
    static let boundary = "XyZ-42"

    /// What a body scans to, with each part's body bytes joined: headers, body, end, in order.
    enum Scanned: Equatable {
        case header(String, String)
        case body([UInt8])
        case partComplete
    }

    static func scan(_ chunks: [[UInt8]]) throws -> (parts: [Scanned], closed: Bool) {
        var scanner = MultipartScanner(boundary: boundary)
        var events: [MultipartScanner.Event] = []
        for chunk in chunks { try scanner.scan(ByteBuffer(bytes: chunk), into: &events) }
        var parts: [Scanned] = []
        for event in events {
            switch event {
            case .header(let name, let value): parts.append(.header(name, value))
            case .body(let buffer):
                if case .body(let bytes) = parts.last {
                    parts[parts.count - 1] = .body(bytes + Array(buffer.readableBytesView))
                } else {
                    parts.append(.body(Array(buffer.readableBytesView)))
                }
            case .partComplete: parts.append(.partComplete)
            }
        }
        return (parts, scanner.isClosed)
    }

    static let nearMisses: [UInt8] = {
        var bytes: [UInt8] = Array("\r\r\n\r\n-\r\n--\r\n--XyZ-4\r\n--XyZ-43\r\n--\r\n--XyZ-4".utf8)
        var random = SeededBytes(seed: 7)
        bytes += random.next(count: 300)
        bytes += Array("\r\n--XyZ-4".utf8)
        return bytes
    }()

    static let body: [UInt8] =
        Array("preamble, ignored\r\n--XyZ-42\r\nContent-Disposition: form-data; name=\"format\"\r\n\r\nmkv".utf8)
        + Array("\r\n--XyZ-42 \t\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp4\"\r\n".utf8)
        + Array("Content-Type:application/octet-stream  \r\n\r\n".utf8) + nearMisses
        + Array("\r\n--XyZ-42--\r\nepilogue, ignored\r\n--XyZ-42\r\n".utf8)

    static let expected: [Scanned] = [
        .header("Content-Disposition", "form-data; name=\"format\""), .body(Array("mkv".utf8)), .partComplete,
        .header("Content-Disposition", "form-data; name=\"file\"; filename=\"a.mp4\""),
        .header("Content-Type", "application/octet-stream"), .body(nearMisses), .partComplete,
    ]

    @Test func wholeBody() throws {
        let scanned = try Self.scan([Self.body])
        #expect(scanned.parts == Self.expected)
        #expect(scanned.closed)
    }

    @Test func everySplitIntoTwo() throws {
        for cut in 1..<Self.body.count {
            let scanned = try Self.scan([Array(Self.body[..<cut]), Array(Self.body[cut...])])
            #expect(scanned.parts == Self.expected, "cut at \(cut)")
            #expect(scanned.closed)
        }
    }

    @Test func oneByteAtATimeAndRandomCuts() throws {
        #expect(try Self.scan(Self.body.map { [$0] }).parts == Self.expected)
        var random = SeededBytes(seed: 3)
        for _ in 0..<200 {
            var chunks: [[UInt8]] = []
            var start = 0
            while start < Self.body.count {
                let length = min(Int(random.nextWord() % 40) + 1, Self.body.count - start)
                chunks.append(Array(Self.body[start..<start + length]))
                start += length
            }
            #expect(try Self.scan(chunks).parts == Self.expected)
        }
    }

    /// The first delimiter may open the body with no line break before it, or follow an empty line.
    @Test func firstDelimiterAtTheStart() throws {
        for opening in ["", "\r\n"] {
            let body = Array(
                "\(opening)--XyZ-42\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--XyZ-42--".utf8)
            let scanned = try Self.scan([body])
            #expect(
                scanned.parts == [.header("Content-Disposition", "form-data; name=\"a\""), .body([98]), .partComplete])
            #expect(scanned.closed)
        }
    }

    @Test func malformedBodiesAreRefused() throws {
        let cases: [(String, String)] = [
            ("--XyZ-42\r\nno colon here\r\n\r\n", "has no ':'"),
            ("--XyZ-42\r\nBad Name: x\r\n\r\n", "not a token"),
            ("--XyZ-42\r\nName: x\n\r\n", "does not end with CRLF"),
            ("--XyZ-42junk\r\n", "more than padding"),
            ("--XyZ-42-x", "more than padding"),
            ("--XyZ-42\r\nX-\u{E9}: 1\r\n\r\n", "header name is not ASCII"),
        ]
        for (body, reason) in cases {
            let error = #expect(throws: ServiceError.self) { try Self.scan([Array(body.utf8)]) }
            #expect(error?.code == "invalid_request", "\(body)")
            #expect(error?.message.contains(reason) == true, "\(body): \(error?.message ?? "")")
        }
    }

    @Test func partHeadersAreBounded() throws {
        let long = "--XyZ-42\r\nX-Long: " + String(repeating: "a", count: MultipartScanner.maxHeaderBytes) + "\r\n"
        let many = "--XyZ-42\r\n" + String(repeating: "X-A: 1\r\n", count: MultipartScanner.maxHeaderLines + 1)
        for body in [long, many] {
            let error = #expect(throws: ServiceError.self) { try Self.scan(Array(body.utf8).map { [$0] }) }
            #expect(error?.code == "headers_too_large")
        }
        let fits = "--XyZ-42\r\n" + String(repeating: "X-A: 1\r\n", count: MultipartScanner.maxHeaderLines) + "\r\n"
        #expect(throws: Never.self) { try Self.scan([Array(fits.utf8)]) }
    }
}
