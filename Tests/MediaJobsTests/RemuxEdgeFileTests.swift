import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Files that are valid but unusual in what they hold.
@Suite struct RemuxEdgeFileTests {
    /// The first top-level boxes of a fragmented MP4 — `ftyp` and `moov` — without any `moof`/`mdat`: an
    /// initialization segment, as a DASH or HLS packager keeps it apart from the media segments.
    static func initializationSegment(in scratch: Scratch) throws -> String {
        let fragmented = try Fixtures.make(
            "fragmented.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-movflags", "frag_keyframe+empty_moov",
                "-f", "mp4",
            ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fragmented)))
        var kept: [UInt8] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8 else { break }
            if type == "ftyp" || type == "moov" { kept += bytes[offset..<min(bytes.count, offset + size)] }
            offset += size
        }
        return try scratch.write("init.mp4", kept)
    }

    @Test func anInitializationSegmentIsProbedButNotRemuxed() throws {
        let scratch = try Scratch("init-segment")
        let input = try Self.initializationSegment(in: scratch)
        let info = try ProbeJob(input: input).run()
        #expect(info.tracks.count == 2)
        for format in [ContainerFormat.mp4, .mkv] {
            let output = scratch.file("out.\(format.fileExtension)")
            let error = #expect(throws: MediaError.self) {
                try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
            }
            #expect(error?.code == .emptyInput, "\(error?.message ?? "")")
            #expect(error?.message.contains("initialization segment") == true)
        }
        #expect(try scratch.listing() == ["init.mp4"])
    }

    /// A fragmented MP4 whose second video track has no samples at all, beside video and audio that do.
    static func emptyTrackMP4() throws -> String {
        try Fixtures.make(
            "empty-track.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i",
                "testsrc=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i", "sine=duration=1", "-map", "0",
                "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-frames:v:1", "0",
                "-movflags", "frag_keyframe+empty_moov", "-f", "mp4",
            ])
    }

    /// The tracks with samples come out whole; the empty one is named, with what became of it: the ISO
    /// muxers write no track without samples, Matroska keeps an empty one.
    @Test func aTrackWithoutSamplesIsNamedAndTheOthersAreKept() throws {
        let input = try Self.emptyTrackMP4()
        let scratch = try Scratch("empty-track")
        for (format, fate) in [(ContainerFormat.mp4, "the mp4 output has no such track"), (.mkv, "empty in the mkv")] {
            let output = scratch.file("out.\(format.fileExtension)")
            let result = try RemuxJob(input: input, output: output, options: try .init(format: format))
                .run(JobContext())
            #expect(result.warnings.contains { $0.contains("track 1 (h264) holds no samples") && $0.contains(fate) })
            let tracks = try Oracle.streams(output).count
            #expect(tracks == (format == .mp4 ? 2 : 3))
            let problems = try Lossless.problems(input: input, output: output, primingMayShow: !format.signalsPriming)
            #expect(problems.isEmpty, "\(format): \(problems)")
        }
    }

    /// An H.263 3GP whose `pasp` says 1:1 while its picture header implies 12:11, as Android phones write
    /// it: the muxers refused the pair ("Aspect ratio mismatch"); now the container's ratio goes to both,
    /// as the ffmpeg CLI does it, and every frame is kept.
    @Test func aContainerAspectRatioOverTheBitstreamsIsKept() throws {
        let plain = try Fixtures.make(
            "h263.3gp", ["-f", "lavfi", "-i", "testsrc=size=176x144:rate=15:duration=1", "-c:v", "h263"])
        let sources = try Scratch("aspect-source")
        let input = sources.file("pasp.3gp")
        try Command.run("ffmpeg", ["-v", "error", "-i", plain, "-c", "copy", "-aspect", "11:9", input])
        #expect(try Oracle.streams(input).first?["sample_aspect_ratio"] as? String == "1:1")
        let scratch = try Scratch("aspect")
        for format in [ContainerFormat.mp4, .mkv] {
            let (output, _) = try remux(input, to: format, in: scratch)
            #expect(try Oracle.streams(output).first?["sample_aspect_ratio"] as? String == "1:1", "\(format)")
            let problems = try Lossless.problems(input: input, output: output, primingMayShow: true)
            #expect(problems.isEmpty, "\(format): \(problems)")
        }
    }
}
