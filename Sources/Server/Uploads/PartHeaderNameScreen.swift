import MediadHTTP
import NIOCore

/// Refuses a multipart part header whose name holds a byte outside ASCII before multipart-kit's parser
/// reads it: the parser looks each name byte up in a table of 128 entries, and a byte past them traps
/// (vapor/multipart-kit 4.7.1), which would take the whole server down with one request.
///
/// It follows the body line by line as the parser does: a line that starts with `--<boundary>` opens a
/// part's headers (unless it is the closing `--<boundary>--`), an empty line closes them, and on a header
/// line the bytes before the first `:` are the name. Bytes are screened as they stream in, so a line
/// split across chunks is followed too.
struct PartHeaderNameScreen {
    private let delimiter: [UInt8]
    /// Between a boundary line and the empty line that ends the part's headers.
    private var inHeaders = false
    private var atLineStart = true
    /// The current line's first bytes: the delimiter's length and two more (the closing `--`).
    private var lineStart: [UInt8] = []
    /// The current line has bytes other than its ending CR.
    private var lineHasContent = false
    /// On a header line, before its first `:`.
    private var inName = false

    init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
    }

    /// Screens the next bytes of the body; 400 `invalid_request` for a part header name outside ASCII.
    mutating func check(_ bytes: ByteBuffer) throws {
        for byte in bytes.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                endLine()
                continue
            }
            if atLineStart {
                atLineStart = false
                lineStart.removeAll(keepingCapacity: true)
                lineHasContent = false
                inName = inHeaders
            }
            if lineStart.count < delimiter.count + 2 { lineStart.append(byte) }
            if byte != UInt8(ascii: "\r") { lineHasContent = true }
            guard inName else { continue }
            if byte == UInt8(ascii: ":") {
                inName = false
            } else if byte >= 0x80 {
                throw ServiceError.invalidRequest("a multipart part's header name is not ASCII")
            }
        }
    }

    private mutating func endLine() {
        if inHeaders {
            inHeaders = lineHasContent
        } else if lineStart.starts(with: delimiter) {
            inHeaders = lineStart.dropFirst(delimiter.count).prefix(2) != [UInt8(ascii: "-"), UInt8(ascii: "-")]
        }
        atLineStart = true
    }
}
