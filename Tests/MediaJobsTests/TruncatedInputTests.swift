import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Inputs whose headers promise more than the file holds: every job kind fails with `truncated_input`
/// instead of writing an empty or short output, while WAV written by a streaming recorder (sizes left
/// "unknown") still encodes every sample it has.
@Suite struct TruncatedInputTests {
    /// `mp4` with `shift` added to the chunk offsets that `select` picks from each `stco` box
    /// (given the entry count), so the box structure stays sound but those samples lie past the end.
    static func shiftingChunkOffsets(
        of mp4: String, by shift: UInt32, select: (_ index: Int, _ count: Int) -> Bool
    ) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4)))
        let type = Array("stco".utf8)
        var found = 0
        var position = 4
        while position + 8 <= bytes.count {
            defer { position += 1 }
            guard Array(bytes[position..<position + 4]) == type else { continue }
            found += 1
            let count = Int(readBigEndian(bytes, position + 8))
            for index in 0..<count where select(index, count) {
                let at = position + 12 + 4 * index
                let moved = readBigEndian(bytes, at) &+ shift
                for byte in 0..<4 { bytes[at + byte] = UInt8(truncatingIfNeeded: moved >> (24 - 8 * UInt32(byte))) }
            }
        }
        #expect(found == 2)
        return bytes
    }

    static func readBigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    static func expectTruncated(_ error: MediaError?, _ kind: String) {
        #expect(error?.code == .truncatedInput, "\(kind): \(String(describing: error))")
        #expect(error?.message.contains("but the file has only") == true, "\(kind): \(String(describing: error))")
    }

    /// Every job kind that reads MP4, on a file whose samples all lie past its end.
    @Test func mp4WithEverySamplePastTheEnd() throws {
        let scratch = try Scratch("pasteof")
        let original = try Fixtures.h264AacMP4()
        let size = UInt32(try FileManager.default.attributesOfItem(atPath: original)[.size] as! Int)
        let input = try scratch.write(
            "input.mp4", try Self.shiftingChunkOffsets(of: original, by: size) { _, _ in true })
        Self.expectTruncated(
            #expect(throws: MediaError.self) {
                try DemuxJob(input: input, outputDirectory: scratch.file("demux")).run(JobContext())
            }, "demux")
        Self.expectTruncated(
            #expect(throws: MediaError.self) {
                try RemuxJob(
                    input: input, output: scratch.file("output.mkv"), options: try .init(parsing: ["format": "mkv"])
                )
                .run(JobContext())
            }, "remux")
        Self.expectTruncated(
            #expect(throws: MediaError.self) {
                try DecodeJob(input: input, output: scratch.file("output.wav"), options: .init()).run(JobContext())
            }, "decode")
        Self.expectTruncated(#expect(throws: MediaError.self) { try ProbeJob(input: input).run() }, "probe")
        #expect(try scratch.listing() == ["input.mp4"])
    }

    /// Only each track's last chunk is moved: before, demux wrote shortened streams and succeeded.
    @Test func mp4WithTheLastChunkPastTheEnd() throws {
        let scratch = try Scratch("lastchunk")
        let input = try scratch.write(
            "input.mp4",
            try Self.shiftingChunkOffsets(of: try Fixtures.h264AacMP4(), by: 1 << 30) { index, count in
                index == count - 1
            })
        let error = #expect(throws: MediaError.self) {
            try DemuxJob(input: input, outputDirectory: scratch.file("demux")).run(JobContext())
        }
        Self.expectTruncated(error, "demux")
        #expect(error?.message.contains("of track 0 declares bytes 1073") == true, "\(String(describing: error))")
    }
}
