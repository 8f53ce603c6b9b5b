import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Timestamps and durations a 34 KB file can push to the edge of Int64: remux must not trap on them.
@Suite struct TimestampOverflowTests {
    /// 1 s of 25 fps H.264 with B-frames and no edit list, so the first presentation time is 1024, not 0.
    static func source() throws -> String {
        try Fixtures.make(
            "h264_no_editlist.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-bf", "2", "-use_editlist", "0", "-f", "mp4",
            ])
    }

    static func uint32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// The source with a version-1 `mdhd` stating a duration of Int64.max and an `stts` whose deltas add
    /// up to Int64.max - 100, so libav reports a track of that duration starting at 1024.
    static func durationNearInt64Max() throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try source())))
        func start(of type: String) throws -> Int {
            let name = Array(type.utf8)
            return try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == name }) - 4
        }
        func size(at offset: Int) -> Int {
            Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
        }
        func replace(_ type: String, with box: [UInt8], parents: [String]) throws {
            let offset = try start(of: type)
            let growth = box.count - size(at: offset)
            bytes.replaceSubrange(offset..<(offset + size(at: offset)), with: box)
            for parent in parents {
                let at = try start(of: parent)
                bytes.replaceSubrange(at..<(at + 4), with: uint32(UInt32(size(at: at) + growth)))
            }
        }
        let header = try start(of: "mdhd")
        let timescale = Array(bytes[(header + 20)..<(header + 24)])
        let language = Array(bytes[(header + 28)..<(header + size(at: header))])
        let mediaHeader =
            uint32(UInt32(40 + language.count)) + Array("mdhd".utf8) + [1, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
            + timescale + uint32(0x7FFF_FFFF) + uint32(0xFFFF_FFFF) + language
        try replace("mdhd", with: mediaHeader, parents: ["moov", "trak", "mdia"])
        let timeToSample =
            uint32(32) + Array("stts".utf8) + [0, 0, 0, 0] + uint32(2) + uint32(0xFFFF_FFFF) + uint32(0x7FFF_FFFF)
            + uint32(3) + uint32(2_147_483_614)
        try replace("stts", with: timeToSample, parents: ["moov", "trak", "mdia", "minf", "stbl"])
        return bytes
    }

    /// The track's end, start + duration, used to trap; it is now unknown and the remux completes.
    @Test func trackEndPastInt64DoesNotTrap() throws {
        let scratch = try Scratch("tsoverflow")
        let input = try scratch.write("input.mp4", try Self.durationNearInt64Max())
        for format in ["mp4", "mkv"] {
            let result = try RemuxJob(
                input: input, output: scratch.file("output.\(format)"), options: try .init(parsing: ["format": format])
            ).run(JobContext())
            #expect(result.tracks.first?.packets == 25, "\(format)")
        }
    }
}
