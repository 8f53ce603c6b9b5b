import Foundation

/// Reads a raw ADTS AAC file frame by frame with mediad's own strict parser.
///
/// libav's `aac` demuxer resynchronises silently over damage; a mux job must instead refuse a damaged
/// input with the byte offset of the damage. The file is read in fixed-size chunks, so memory does not
/// grow with its size. ID3v2 tags are skipped where a frame could start (some streams carry timed ID3
/// metadata between frames), and so is an ID3v1 tag that ends the file; every other byte must belong
/// to a frame. All frames must share the first
/// frame's object type, sampling frequency and channel configuration.
public final class ADTSReader {
    public let path: String
    /// Size of the file in bytes when it was opened.
    public let size: Int64
    /// The first frame's header: the format of the whole stream.
    public private(set) var format = ADTSHeader(
        objectType: 0, samplingFrequencyIndex: 0, channelConfiguration: 0, frameLength: 0, headerLength: 0,
        rawDataBlockCount: 0)

    private static let chunkSize = 64 * 1024
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the next unread byte.
    private var cursor = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private var atEnd = false
    /// Whether a last frame (or frame header) that the end of the file cuts ends the stream, as libav's
    /// demuxer ends it, instead of failing with `truncated_input`.
    public var salvagesCutEnd = false
    /// The cut that ended the stream when `salvagesCutEnd`, as a `truncated_input` message.
    public private(set) var cutEnd: String? = nil

    /// Opens `path` and reads the first frame header; throws if the file does not start like ADTS AAC.
    public init(path: String) throws {
        // Read as a whole: a file still arriving is waited for first.
        try ArrivingFiles.waitForAll(path)
        self.path = path
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw MediaError(.ioError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        size = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
        guard size > 0 else { throw MediaError(.emptyInput, "the ADTS input is empty") }
        guard let (first, _) = try peekHeader() else {
            throw MediaError(.invalidInput, "the ADTS input contains no AAC frames")
        }
        try Self.checkSupported(first)
        format = first
    }

    deinit { close(descriptor) }

    /// File offset of the next unread byte, for progress.
    public var position: Int64 { bufferOffset + Int64(cursor) }

    /// The raw AAC payload of the next frame (header and CRC removed); nil at the end of the file.
    public func next() throws -> [UInt8]? {
        guard let (header, offset) = try peekHeader() else { return nil }
        try checkConsistent(header, at: offset)
        if header.rawDataBlockCount > 1 {
            throw MediaError(
                .unsupportedCodec,
                "the ADTS frame at byte \(offset) carries \(header.rawDataBlockCount) raw data blocks; "
                    + "only frames with one block are supported")
        }
        guard try fill(header.frameLength) else {
            let message =
                "the ADTS frame at byte \(offset) is \(header.frameLength) bytes long but the file ends after "
                + "\(available) bytes"
            guard salvagesCutEnd else { throw MediaError(.truncatedInput, message) }
            cutEnd = message
            return nil
        }
        let payload = Array(buffer[(cursor + header.headerLength)..<(cursor + header.frameLength)])
        cursor += header.frameLength
        return payload
    }

    /// Skips any ID3v2 tags and parses the header at the next frame start without consuming it.
    private func peekHeader() throws -> (ADTSHeader, Int64)? {
        try skipID3Tags()
        guard try fill(1), !(try atTrailingID3v1()) else { return nil }
        let offset = position
        guard try fill(7) else {
            if buffer[cursor] == 0xFF {
                let message = "the ADTS input ends inside a frame header at byte \(offset)"
                guard salvagesCutEnd else { throw MediaError(.truncatedInput, message) }
                cutEnd = message
                return nil
            }
            throw MediaError(.invalidInput, "the ADTS input has \(available) stray bytes at byte \(offset)")
        }
        guard ADTSHeader.isSync(buffer, at: cursor) else {
            throw MediaError(.invalidInput, "the ADTS input has bytes that are not an ADTS frame at byte \(offset)")
        }
        let parsed = buffer.withUnsafeBufferPointer { ADTSHeader.parse($0, at: cursor) }
        guard let header = parsed else {
            throw MediaError(.invalidInput, "the ADTS frame header at byte \(offset) is invalid")
        }
        return (header, offset)
    }

    private func skipID3Tags() throws {
        while try fill(3), buffer[cursor] == 0x49, buffer[cursor + 1] == 0x44, buffer[cursor + 2] == 0x33 {
            let offset = position
            guard try fill(10) else {
                throw MediaError(.truncatedInput, "the ID3 tag at byte \(offset) is cut short")
            }
            let sizeBytes = buffer[(cursor + 6)..<(cursor + 10)]
            guard sizeBytes.allSatisfy({ $0 < 0x80 }) else {
                throw MediaError(.invalidInput, "the ID3 tag at byte \(offset) has an invalid size")
            }
            let footer = buffer[cursor + 5] & 0x10 != 0 ? 10 : 0
            let length = 10 + footer + sizeBytes.reduce(0) { ($0 << 7) | Int($1) }
            guard position + Int64(length) <= size else {
                throw MediaError(.truncatedInput, "the ID3 tag at byte \(offset) runs past the end of the file")
            }
            try skip(length)
        }
    }

    /// True when the rest of the file is exactly one 128-byte ID3v1 tag.
    private func atTrailingID3v1() throws -> Bool {
        guard position + 128 == size, try fill(3) else { return false }
        return buffer[cursor..<(cursor + 3)].elementsEqual("TAG".utf8)
    }

    private static func checkSupported(_ header: ADTSHeader) throws {
        guard header.channelConfiguration != 0 else {
            throw MediaError(
                .unsupportedCodec,
                "the ADTS stream uses channel configuration 0 (a program config element), which is not supported")
        }
        guard [1, 2, 4].contains(header.objectType) else {
            throw MediaError(
                .unsupportedCodec,
                "the ADTS stream uses audio object type \(header.objectType) (AAC SSR), which is not supported")
        }
    }

    private func checkConsistent(_ header: ADTSHeader, at offset: Int64) throws {
        let changes = [
            ("audio object type", format.objectType, header.objectType),
            ("sampling frequency index", format.samplingFrequencyIndex, header.samplingFrequencyIndex),
            ("channel configuration", format.channelConfiguration, header.channelConfiguration),
        ].filter { $0.1 != $0.2 }
        if let (field, old, new) = changes.first {
            throw MediaError(
                .invalidInput, "the ADTS frame at byte \(offset) changes the \(field) from \(old) to \(new)")
        }
    }

    private var available: Int { buffer.count - cursor }

    /// Makes at least `count` unread bytes available; false when the file ends first.
    private func fill(_ count: Int) throws -> Bool {
        while available < count, !atEnd {
            if cursor > 0 {
                buffer.removeFirst(cursor)
                bufferOffset += Int64(cursor)
                cursor = 0
            }
            var chunk = [UInt8](repeating: 0, count: max(Self.chunkSize, count - available))
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard got >= 0 else {
                throw MediaError(.ioError, "reading \(path): \(String(cString: strerror(errno)))")
            }
            if got == 0 { atEnd = true }
            buffer.append(contentsOf: chunk.prefix(got))
        }
        return available >= count
    }

    /// Consumes `count` bytes, seeking past those not yet read.
    private func skip(_ count: Int) throws {
        if count <= available {
            cursor += count
            return
        }
        let target = position + Int64(count)
        guard lseek(descriptor, off_t(target), SEEK_SET) >= 0 else {
            throw MediaError(.ioError, "seeking in \(path): \(String(cString: strerror(errno)))")
        }
        buffer.removeAll(keepingCapacity: true)
        cursor = 0
        bufferOffset = target
        atEnd = false
    }
}
