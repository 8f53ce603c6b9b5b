import Foundation

/// Splits a worker's stdout into `WorkerMessage` lines as the bytes arrive.
///
/// Each byte is looked at once, however a line is cut into reads: a line is searched for its end only in
/// the bytes just read, never again from its start. A line longer than `maximumLineBytes` is dropped as
/// it arrives instead of being buffered, so a worker cannot make the server hold (or parse) an unbounded
/// message.
package struct WorkerMessageReader {
    /// The longest line kept. A final message carries a job's result, whose file metadata is capped
    /// (`MetadataCaps`) to a few hundred KiB at most; anything much longer is not a message mediad wrote.
    package static let maximumLineBytes = 4 << 20

    private let maximumLineBytes: Int
    /// The start of the line being read, up to the last read.
    private var pending = Data()
    /// Whether the line being read went over the limit: its bytes are dropped up to its newline.
    private var dropping = false
    /// Whether any line went over the limit.
    private(set) var refusedLine = false

    package init(maximumLineBytes: Int = Self.maximumLineBytes) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// Takes the next bytes of the stream and passes each message line they complete to `body`.
    package mutating func consume(_ bytes: Data, _ body: (WorkerMessage) -> Void) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let newline = Self.firstNewline(in: bytes[start...]) else {
                append(bytes[start...])
                return
            }
            append(bytes[start..<newline])
            if !dropping, let message = WorkerMessage.parse(pending) { body(message) }
            pending.removeAll(keepingCapacity: pending.count <= 64 << 10)
            dropping = false
            start = bytes.index(after: newline)
        }
    }

    /// The index of the first newline in `bytes`, found with `memchr`.
    private static func firstNewline(in bytes: Data) -> Data.Index? {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "\n")), raw.count) else {
                return nil
            }
            return bytes.startIndex + (UnsafeRawPointer(found) - base)
        }
    }

    /// Adds part of a line, or drops it once the line is over the limit.
    private mutating func append(_ part: Data) {
        guard !dropping else { return }
        guard pending.count + part.count <= maximumLineBytes else {
            dropping = true
            refusedLine = true
            pending = Data()
            return
        }
        pending.append(part)
    }
}
