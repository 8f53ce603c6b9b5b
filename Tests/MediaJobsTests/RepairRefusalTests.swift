import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// What a repair refuses, and hostile inputs: each fails with a clear code, writes nothing, and stays
/// within its bounds.
@Suite struct RepairRefusalTests {
    private func failure(
        _ input: String, reference: String?, format: RepairJob.Format = .mp4, in scratch: Scratch
    ) -> MediaError? {
        let output = scratch.file("fixed.\(format.rawValue)")
        do {
            _ = try RepairJob(input: input, reference: reference, output: output, options: .init(format: format))
                .run(JobContext())
            return nil
        } catch {
            #expect(!FileManager.default.fileExists(atPath: output), "a failed repair left its output")
            return error as? MediaError
        }
    }

    private func brokenH264(_ scratch: Scratch) throws -> String {
        let original = try RepairRecordings.recording("h264.mp4", codecs: RepairRecordings.h264AAC, container: "mp4")
        return try RepairRecordings.cut(original, at: 0.6, in: scratch, name: "broken.mp4").0
    }

    /// An H.264 recording with an H.265 reference: no picture of the reference's codec is found.
    @Test func refusesAReferenceOfAnotherCodec() throws {
        let scratch = try Scratch("repair-other-codec")
        let reference = try RepairRecordings.recording(
            "hevc-reference.mp4", codecs: RepairRecordings.hevcAAC, container: "mp4", seconds: 2)
        let error = failure(try brokenH264(scratch), reference: reference, in: scratch)
        #expect(error?.code == .referenceMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("H.265") == true)
    }

    /// The same codec at another picture size: the slices parse, the pictures do not decode.
    @Test func refusesAReferenceOfOtherSettings() throws {
        let scratch = try Scratch("repair-other-size")
        let reference = try Fixtures.make(
            "h264-640.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=48000",
                "-t", "2",
            ]
                + RepairRecordings.h264AAC + ["-f", "mp4"])
        let error = failure(try brokenH264(scratch), reference: reference, in: scratch)
        #expect(error?.code == .referenceMismatch, "\(String(describing: error))")
    }

    /// PCM audio has no MP4 sample entry in libav 5.1: refused before the walk, with the way out named.
    @Test func refusesPCMIntoMP4() throws {
        let scratch = try Scratch("repair-pcm-mp4")
        let original = try RepairRecordings.recording("pcm.mov", codecs: RepairRecordings.h264PCM, container: "mov")
        let broken = try RepairRecordings.cut(original, at: 0.5, in: scratch, name: "broken.mov").0
        let reference = try RepairRecordings.recording(
            "pcm-reference.mov", codecs: RepairRecordings.h264PCM, container: "mov", seconds: 2)
        let error = failure(broken, reference: reference, in: scratch)
        #expect(error?.code == .unsupportedCodec && error?.message.contains("format=mov") == true)
    }

    @Test func needsAReferenceForAnIndexlessFile() throws {
        let scratch = try Scratch("repair-no-reference")
        let error = failure(try brokenH264(scratch), reference: nil, in: scratch)
        #expect(error?.code == .referenceRequired, "\(String(describing: error))")
    }

    /// A box header and random bytes: no sample of the reference's format is there (with video, or AAC
    /// alone, whose frames random bytes decode as now and then), and the walk over them ends. Zeros are
    /// space never written: nothing to recover, and not the reference's fault.
    @Test func recoversNothingFromRandomBytesOrZeros() throws {
        let scratch = try Scratch("repair-random")
        var random = SeededBytes(seed: 7)
        let input = try scratch.write(
            "random.mp4", ftyp + [0, 0, 0, 0] + Array("mdat".utf8) + random.next(count: 256 << 10))
        let reference = try RepairRecordings.recording(
            "h264-reference.mp4", codecs: RepairRecordings.h264AAC, container: "mp4", seconds: 2)
        let audioOnly = try RepairRecordings.recording(
            "aac-reference.mp4", codecs: ["-vn", "-c:a", "aac"], container: "mp4", seconds: 2)
        for reference in [reference, audioOnly] {
            let error = failure(input, reference: reference, in: scratch)
            #expect(error?.code == .referenceMismatch, "\(String(describing: error))")
        }
        let zeros = try scratch.write(
            "zeros.mp4", ftyp + [0, 0, 0, 0] + Array("mdat".utf8) + Array(repeating: 0, count: 100_000))
        #expect(failure(zeros, reference: reference, in: scratch)?.code == .nothingRecovered)
    }

    /// Sizes that claim more than the file: a 64-bit `mdat` size of 2⁶³ - 1, and NAL unit sizes of 0xFFFFFFF0
    /// written over every tenth video sample. The file is read to its end and no further; the damaged
    /// samples are skipped and the rest recovered.
    @Test func boundsAbsurdSizes() throws {
        let scratch = try Scratch("repair-absurd")
        let original = try RepairRecordings.recording("h264.mp4", codecs: RepairRecordings.h264AAC, container: "mp4")
        let data = try RepairRecordings.mediaData(original)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)).prefix(data.upperBound))
        let videos = try RepairRecordings.packets(original, "v:0").filter { $0.position + $0.size <= data.upperBound }
        for packet in videos.enumerated().filter({ $0.offset % 10 == 5 }).map(\.element) {
            bytes.replaceSubrange(packet.position..<(packet.position + 4), with: [0xFF, 0xFF, 0xFF, 0xF0])
        }
        // The mdat header becomes a 64-bit size of Int64.max: 16 header bytes where 8 were, over the
        // `free` box before it.
        let header = data.lowerBound - 8
        #expect(Array(bytes[(header - 8)..<(header - 4)]) == [0, 0, 0, 8])
        bytes.replaceSubrange(
            (header - 8)..<(header + 8),
            with: [0, 0, 0, 1] + Array("mdat".utf8) + [0x7F] + Array(repeating: 0xFF, count: 7))
        let input = try scratch.write("absurd.mp4", bytes)
        let reference = try RepairRecordings.recording(
            "h264-reference.mp4", codecs: RepairRecordings.h264AAC, container: "mp4", seconds: 2)
        let output = scratch.file("fixed.mp4")
        let result = try RepairJob(input: input, reference: reference, output: output, options: .init()).run(
            JobContext())
        #expect(result.skippedBytes > 0)
        #expect(result.warnings.contains { $0.contains("skipped") })
        let recovered = try #require(result.tracks.first { $0.kind == "video" }).samples
        // The damaged samples are lost; at least the undamaged nine in ten are there.
        #expect(Double(recovered) >= 0.85 * Double(videos.count), "\(recovered) of \(videos.count)")
    }

    private let ftyp: [UInt8] = [0, 0, 0, 0x14] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8)
}
