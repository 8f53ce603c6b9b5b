import Foundation
import MediaCore

/// Reads a broken recording's bytes at any offset through one window held in memory.
///
/// A worker's address space is limited, so the file is not mapped: the window is read with `pread` and
/// moved when a request falls outside it. A repair walks forward, so each byte is read about once.
final class ByteWindow {
    /// The file's size when it was opened.
    let size: Int64
    private let descriptor: Int32
    private let path: String
    /// The bytes of `[start, start + buffer.count)`.
    private var buffer: [UInt8] = []
    private var start: Int64 = 0
    /// How much is read at a time when the window moves.
    private let chunk: Int

    init(path: String, chunk: Int = 8 << 20) throws {
        // Read as a whole: a file still arriving is waited for first.
        try ArrivingFiles.waitForAll(path)
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MediaError(.ioError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw MediaError(.ioError, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.size = Int64(info.st_size)
        self.chunk = chunk
    }

    deinit { close(descriptor) }

    /// Calls `body` with the bytes of `[offset, offset + count)`, which must lie inside the file; `count` is
    /// bounded by the caller (a sample size it has checked), never taken from the file unchecked.
    func withBytes<T>(at offset: Int64, count: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        guard count >= 0, offset >= 0, offset + Int64(count) <= size else {
            throw MediaError(.internalError, "a repair read \(count) bytes at \(offset) of a \(size)-byte file")
        }
        if offset < start || offset + Int64(count) > start + Int64(buffer.count) {
            try load(from: offset, atLeast: count)
        }
        let begin = Int(offset - start)
        return try buffer.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[begin..<(begin + count)]))
        }
    }

    /// A copy of the bytes of `[offset, offset + count)`.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        try withBytes(at: offset, count: count) { Array($0) }
    }

    /// The byte at `offset`.
    func byte(at offset: Int64) throws -> UInt8 {
        try withBytes(at: offset, count: 1) { $0[0] }
    }

    /// The big-endian unsigned integer of `width` bytes (1 to 8) at `offset`.
    func bigEndian(at offset: Int64, width: Int) throws -> UInt64 {
        try withBytes(at: offset, count: width) { bytes in bytes.reduce(0) { ($0 << 8) | UInt64($1) } }
    }

    /// Moves the window to start at `offset` and hold at least `count` bytes (a chunk when that is more).
    private func load(from offset: Int64, atLeast count: Int) throws {
        let length = Int(min(Int64(max(chunk, count)), size - offset))
        var fresh = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = fresh.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, length - done, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw MediaError(
                    .ioError, "cannot read \(path) at byte \(offset + Int64(done)): the file changed or cannot be read")
            }
            done += got
        }
        buffer = fresh
        start = offset
    }
}
