import Foundation

/// Reads and rewrites parts of an ISO file that mediad has just written, in place: its top-level box
/// headers, a box's bytes, and the tail of the file moved further on to make room.
///
/// Only for mediad's own outputs, before they are synced and renamed into place: sizes are trusted as
/// the muxer wrote them (inputs are checked by `ISOBoxValidator` instead).
final class ISOFileAccess {
    /// A box: its type, and where it lies (offsets relative to what was scanned).
    struct Box {
        let type: String
        let offset: Int64
        let size: Int64
    }

    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        // Read as a whole: a file still arriving is waited for first.
        try ArrivingFiles.waitForAll(path)
        self.path = path
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure("cannot open", path) }
    }

    deinit { close(descriptor) }

    /// The boxes at the top level of the file, in order.
    func topLevelBoxes() throws -> [Box] {
        let end = Int64(lseek(descriptor, 0, SEEK_END))
        var boxes: [Box] = []
        var offset: Int64 = 0
        while offset + 8 <= end {
            let header = try read(offset, count: Int(min(16, end - offset)))
            var size = Int64(Self.uint32(header, at: 0))
            if size == 1, header.count == 16 {
                size = Int64(Self.uint32(header, at: 8)) << 32 | Int64(Self.uint32(header, at: 12))
            } else if size == 0 {
                size = end - offset
            }
            guard size >= 8, offset + size <= end else {
                throw MediaError(.internalError, "\(path): the box at byte \(offset) has a bad size \(size)")
            }
            boxes.append(Box(type: Self.type(header), offset: offset, size: size))
            offset += size
        }
        return boxes
    }

    func read(_ offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got == count else { throw Self.failure("cannot read", path) }
        return bytes
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws {
        let put = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, bytes.count, off_t(offset)) }
        guard put == bytes.count else { throw Self.failure("cannot write", path) }
    }

    /// Moves the bytes from `offset` to the end of the file `distance` bytes on, last chunk first so
    /// nothing is overwritten before it has moved.
    func shiftTail(from offset: Int64, by distance: Int) throws {
        let chunk: Int64 = 1 << 20
        var end = Int64(lseek(descriptor, 0, SEEK_END))
        while end > offset {
            let start = max(offset, end - chunk)
            try write(try read(start, count: Int(end - start)), at: start + Int64(distance))
            end = start
        }
    }

    /// The boxes laid end to end in `bytes[start..<end]`.
    static func boxes(in bytes: [UInt8], from start: Int, to end: Int? = nil) -> [Box] {
        let limit = end ?? bytes.count
        var boxes: [Box] = []
        var offset = start
        while offset + 8 <= limit {
            let size = Int(uint32(bytes, at: offset))
            guard size >= 8, offset + size <= limit else { break }
            boxes.append(Box(type: type(Array(bytes[offset..<offset + 8])), offset: Int64(offset), size: Int64(size)))
            offset += size
        }
        return boxes
    }

    static func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        bytes[index..<index + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// Adds `amount` to the 32-bit size of the box whose header starts at `index`.
    static func addToSize(_ bytes: inout [UInt8], at index: Int, _ amount: Int) {
        let size = uint32(bytes, at: index) + UInt32(amount)
        for byte in 0..<4 { bytes[index + byte] = UInt8(truncatingIfNeeded: size >> (24 - 8 * byte)) }
    }

    private static func type(_ header: [UInt8]) -> String { String(decoding: header[4..<8], as: UTF8.self) }

    private static func failure(_ what: String, _ path: String) -> MediaError {
        MediaError(.ioError, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
