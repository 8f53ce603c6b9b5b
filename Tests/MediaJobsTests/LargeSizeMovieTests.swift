import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// A valid MP4 laid out as files over 4 GB are: an `mdat` whose size is in the 64-bit `largesize` field
/// and chunk offsets in `co64`. The ISO box check once refused such a file as `truncated_input`.
@Suite struct LargeSizeMovieTests {
    /// One box of an ISO file: its type, where it starts and ends, and the size of its header.
    struct Box {
        var type: String
        var range: Range<Int>
        var header: Int
        var body: Range<Int> { range.lowerBound + header..<range.upperBound }
    }

    /// The boxes one after another in `range` of `bytes` (32-bit sizes: ffmpeg's small files).
    static func boxes(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Int(bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { break }
            found.append(Box(type: type, range: offset..<offset + size, header: 8))
            offset += size
        }
        return found
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// `box` written again with every `stco` below it turned into a `co64` of the same offsets.
    static func widenOffsets(_ bytes: [UInt8], _ box: Box) -> [UInt8] {
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]
        var body: [UInt8]
        var type = box.type
        if containers.contains(box.type) {
            body = boxes(bytes, box.body).flatMap { widenOffsets(bytes, $0) }
        } else if box.type == "stco" {
            let start = box.body.lowerBound
            let count = Int(bytes[start + 4..<start + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            body = Array(bytes[start..<start + 8])
            for entry in 0..<count {
                let at = start + 8 + 4 * entry
                body += bigEndian(UInt64(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
            }
            type = "co64"
        } else {
            return Array(bytes[box.range])
        }
        return bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    /// The ffmpeg CLI's MP4 (moov at the end, the `free` box it keeps before `mdat` for a 64-bit size)
    /// with that `free` and the `mdat` header made one 16-byte `largesize` header, so that no sample
    /// moves, and `stco` made `co64`.
    static func largeSizeMovie(in scratch: Scratch) throws -> (original: String, widened: String) {
        let original = try Fixtures.make(
            "moov-last.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-c:a", "aac", "-f", "mp4",
            ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let top = boxes(bytes, 0..<bytes.count)
        #expect(top.map(\.type) == ["ftyp", "free", "mdat", "moov"], "\(top.map(\.type))")
        let (ftyp, free, mdat, moov) = (top[0], top[1], top[2], top[3])
        #expect(free.range.count == 8)
        let payload = bytes[mdat.body]
        let widened =
            Array(bytes[ftyp.range]) + bigEndian(UInt32(1)) + Array("mdat".utf8) + bigEndian(UInt64(16 + payload.count))
            + payload + widenOffsets(bytes, moov)
        return (original, try scratch.write("largesize.mp4", widened))
    }

    @Test func aLargeSizeMdatWithCo64OffsetsRemuxesSampleForSample() throws {
        let scratch = try Scratch("largesize")
        let (original, widened) = try Self.largeSizeMovie(in: scratch)
        // The synthetic file is valid to readers that are not ours: libav decodes the same frames and
        // samples from it, and GStreamer's qtdemux plays it without a warning.
        let expected = try Oracle.decodedHashes(original, streams: "0")
        #expect(try Oracle.decodedHashes(widened, streams: "0") == expected)
        #expect(try Parsers.gstreamerProblems(widened, streams: 2).isEmpty)
        let widenedBytes = try Data(contentsOf: URL(fileURLWithPath: widened))
        #expect(widenedBytes.range(of: Data("co64".utf8)) != nil && widenedBytes.range(of: Data("stco".utf8)) == nil)

        try ISOBoxValidator.validate(path: widened)
        for format in [ContainerFormat.mp4, .mkv] {
            let output = scratch.file("out.\(format.fileExtension)")
            _ = try RemuxJob(input: widened, output: output, options: try .init(format: format)).run(JobContext())
            let problems = try Lossless.problems(input: original, output: output, primingMayShow: format == .mkv)
            #expect(problems.isEmpty, "\(format): \(problems)")
        }
    }
}
