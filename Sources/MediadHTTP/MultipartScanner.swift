import Foundation
import NIOCore
import NIOHTTP1

/// Splits a `multipart/form-data` body (RFC 7578, framed as RFC 2046 says) into part headers, body bytes
/// and part ends as it streams in, chunk by chunk, wherever the chunks happen to break.
///
/// A part's body is searched for the delimiter (`CRLF--boundary`) with `memchr`, and the bytes before it
/// are handed on as slices of the chunk they came in, without a copy: a file part of gigabytes costs one
/// search over its bytes, not a step per byte. Only the few bytes at a chunk's end that could begin a
/// delimiter are held back until the next chunk says what they are.
///
/// Part headers are bounded like a request head: at most `maxHeaderBytes` from a delimiter to the end of
/// the part's headers and `maxHeaderLines` header lines, past either 431 `headers_too_large` at once. A
/// header name is a token (RFC 9110); a name outside ASCII is refused by name. The preamble before the
/// first delimiter and the epilogue after the closing one are ignored, as RFC 2046 says.
package struct MultipartScanner {
    package enum Event {
        case header(name: String, value: String)
        case body(ByteBuffer)
        case partComplete
    }

    private enum State {
        /// Before the first delimiter: bytes are skipped.
        case preamble
        /// After a delimiter: `--` closes the body, padding and CRLF open a part's headers.
        case delimiterLine
        case headers
        case body
        /// After the closing delimiter: bytes are skipped.
        case epilogue
    }

    package static let maxHeaderBytes = 16 * 1024
    package static let maxHeaderLines = 32

    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Bytes of the last chunk not yet accounted for: in the preamble or a body, a possible start of the
    /// delimiter; on the delimiter's line or in headers, the incomplete line.
    private var held: [UInt8]
    /// Bytes from the last delimiter up to here, and header lines of the part being read.
    private var headerBytes = 0
    private var headerLines = 0

    /// Whether the closing delimiter has been seen.
    package var isClosed: Bool {
        if case .epilogue = state { return true }
        return false
    }

    package init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body, with no line break before it.
        held = [13, 10]
    }

    /// Scans the next chunk, appending what it completes to `events`.
    package mutating func scan(_ chunk: ByteBuffer, into events: inout [Event]) throws {
        var input = chunk
        while input.readableBytes > 0 {
            switch state {
            case .preamble, .body:
                scanForDelimiter(&input, into: &events)
            case .delimiterLine:
                try scanDelimiterLine(&input)
            case .headers:
                try scanHeaderLine(&input, into: &events)
            case .epilogue:
                return
            }
        }
    }

    /// In the preamble or a body: hands on (in a body) the bytes before the delimiter, and steps past it.
    private mutating func scanForDelimiter(_ input: inout ByteBuffer, into events: inout [Event]) {
        let inBody = if case .body = state { true } else { false }
        if !held.isEmpty {
            // The held bytes are a start of the delimiter: the chunk's first bytes say whether it goes on.
            let window = held + input.readableBytesView.prefix(delimiter.count)
            let needed = delimiter.count - held.count
            if window.count >= delimiter.count, window.starts(with: delimiter) {
                input.moveReaderIndex(forwardBy: needed)
                held.removeAll()
                passDelimiter(inBody: inBody, into: &events)
                return
            }
            if window.count < delimiter.count, delimiter.starts(with: window) {
                held = window
                input.moveReaderIndex(forwardBy: input.readableBytes)
                return
            }
            // A held start that did not go on. The delimiter has a CR only at its start (the boundary comes
            // from a header value, which holds none), so no later held byte can begin it either.
            if inBody { events.append(.body(ByteBuffer(bytes: held))) }
            held.removeAll()
        }
        let found = input.withUnsafeReadableBytes { Self.firstDelimiter(in: $0, delimiter: delimiter) }
        if let found {
            let before = input.readSlice(length: found)!
            if inBody, before.readableBytes > 0 { events.append(.body(before)) }
            input.moveReaderIndex(forwardBy: delimiter.count)
            passDelimiter(inBody: inBody, into: &events)
            return
        }
        let tail = Self.delimiterStart(endingAt: input.readableBytesView, delimiter: delimiter)
        let before = input.readSlice(length: input.readableBytes - tail)!
        if inBody, before.readableBytes > 0 { events.append(.body(before)) }
        held = Array(input.readableBytesView)
        input.moveReaderIndex(forwardBy: tail)
    }

    private mutating func passDelimiter(inBody: Bool, into events: inout [Event]) {
        if inBody { events.append(.partComplete) }
        state = .delimiterLine
        headerBytes = delimiter.count
        headerLines = 0
    }

    /// Where the delimiter first begins in `bytes`, if it does. `memchr` (vectorised in glibc) finds each CR,
    /// about one byte in 256 of compressed media, and only there are the bytes compared.
    static func firstDelimiter(in bytes: UnsafeRawBufferPointer, delimiter: [UInt8]) -> Int? {
        guard let base = bytes.baseAddress, bytes.count >= delimiter.count else { return nil }
        let last = bytes.count - delimiter.count
        var start = 0
        while start <= last, let found = memchr(base + start, 13, last - start + 1) {
            let offset = base.distance(to: UnsafeRawPointer(found))
            if delimiter.withUnsafeBytes({ memcmp(base + offset, $0.baseAddress!, delimiter.count) == 0 }) {
                return offset
            }
            start = offset + 1
        }
        return nil
    }

    /// The length of the longest end of `bytes` that is a start of the delimiter (shorter than all of it).
    static func delimiterStart(endingAt bytes: ByteBufferView, delimiter: [UInt8]) -> Int {
        var length = min(delimiter.count - 1, bytes.count)
        while length > 0 {
            if bytes.suffix(length).elementsEqual(delimiter.prefix(length)) { return length }
            length -= 1
        }
        return 0
    }

    /// The rest of a delimiter's line: `--` closes the body; otherwise optional padding (spaces and tabs)
    /// and CRLF open a part's headers.
    private mutating func scanDelimiterLine(_ input: inout ByteBuffer) throws {
        while let byte = input.readInteger(as: UInt8.self) {
            try count(bytes: 1)
            held.append(byte)
            if held == [UInt8(ascii: "-"), UInt8(ascii: "-")] {
                held.removeAll()
                state = .epilogue
                return
            }
            if held == [UInt8(ascii: "-")] { continue }
            if byte == UInt8(ascii: "\n") {
                guard held.dropLast().last == UInt8(ascii: "\r"),
                    held.dropLast(2).allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                else { throw Self.malformed("a delimiter is followed by more than padding on its line") }
                held.removeAll()
                state = .headers
                return
            }
            guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") else {
                throw Self.malformed("a delimiter is followed by more than padding on its line")
            }
        }
    }

    /// One header line of a part, or the empty line that ends its headers.
    private mutating func scanHeaderLine(_ input: inout ByteBuffer, into events: inout [Event]) throws {
        let lineFeed = input.readableBytesView.firstIndex(of: UInt8(ascii: "\n"))
        let taken = lineFeed.map { $0 - input.readerIndex + 1 } ?? input.readableBytes
        try count(bytes: taken)
        held.append(contentsOf: input.readSlice(length: taken)!.readableBytesView)
        guard lineFeed != nil else { return }
        defer { held.removeAll(keepingCapacity: true) }
        guard held.count >= 2, held[held.count - 2] == UInt8(ascii: "\r") else {
            throw Self.malformed("a part header line does not end with CRLF")
        }
        let line = held.dropLast(2)
        if line.isEmpty {
            state = .body
            return
        }
        headerLines += 1
        guard headerLines <= Self.maxHeaderLines else { throw Self.tooLarge }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw Self.malformed("a part header line has no ':'")
        }
        let name = line[line.startIndex..<colon]
        if name.contains(where: { $0 >= 0x80 }) {
            throw ServiceError.invalidRequest("a multipart part's header name is not ASCII")
        }
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            throw Self.malformed("a part header name is not a token")
        }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let value = line[(colon + 1)...].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        events.append(
            .header(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
    }

    /// `tchar` of RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private mutating func count(bytes: Int) throws {
        headerBytes += bytes
        guard headerBytes <= Self.maxHeaderBytes else { throw Self.tooLarge }
    }

    private static func malformed(_ reason: String) -> ServiceError {
        ServiceError.invalidRequest("the multipart body is malformed: \(reason)")
    }

    private static let tooLarge = ServiceError(
        .requestHeaderFieldsTooLarge, "headers_too_large",
        "a multipart part's headers are over \(maxHeaderBytes) bytes or \(maxHeaderLines) lines")
}
