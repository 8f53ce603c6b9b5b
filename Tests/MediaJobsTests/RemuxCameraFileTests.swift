import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// The class of file current iPhones record, made with the ffmpeg CLI: HEVC Main 10 with B-frames in a
/// QuickTime file, a timecode (`tmcd`) track beside video and audio, and an edit list that starts inside
/// the first GOP (`-ss` on a stream copy). The real Dolby Vision recording in Tests/Media/real adds the
/// negative composition offsets that only Apple writes.
@Suite struct RemuxCameraFileTests {
    static func cameraMOV() throws -> String {
        let source = try Fixtures.make(
            "camera-source.mov",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=2", "-f", "lavfi", "-i",
                "sine=duration=2", "-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params",
                "bframes=3:keyint=30:log-level=error", "-tag:v", "hvc1", "-c:a", "aac", "-timecode", "01:00:00:00",
            ])
        return try Fixtures.make(
            "camera.mov",
            ["-ss", "0.5", "-i", source, "-map", "0:v", "-map", "0:a", "-c", "copy", "-timecode", "01:00:00:00"])
    }

    /// ISO targets keep every frame and sample and the start timecode (a new tmcd track, as libav makes it
    /// from the video's tag); Matroska keeps it as a tag and names what the edit list hid.
    @Test(arguments: [ContainerFormat.mp4, .mov, .mkv])
    func keepsFramesAndTimecode(format: ContainerFormat) throws {
        let input = try Self.cameraMOV()
        let scratch = try Scratch("camera")
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        #expect(result.warnings.contains { $0.contains("(tmcd) is a timecode track: its start 01:00:00:00 is kept") })
        let streams = try Oracle.streams(output)
        let timecodes = streams.compactMap {
            ($0["tags"] as? [String: Any])?.first { $0.key.lowercased() == "timecode" }
        }
        #expect(timecodes.contains { $0.value as? String == "01:00:00:00" })
        if format.isISOBaseMedia {
            #expect(streams.contains { $0["codec_tag_string"] as? String == "tmcd" })
        }
        let hidden = result.warnings.contains { $0.contains("input's edit list hides") }
        #expect(hidden == !format.isISOBaseMedia, "\(result.warnings)")
        let problems = try Lossless.problems(
            input: input, output: output, primingMayShow: !format.signalsPriming, hiddenMayShow: hidden)
        #expect(problems.isEmpty, "\(format): \(problems)")
    }

    /// A real iPhone Dolby Vision recording (androidx/media's test data): B-frames with negative composition
    /// offsets, which libav 5.1 demuxes with pts < dts, and an edit list that ends before the last decoded
    /// frame. Whole ISO outputs are frame-exact; a fragmented one cannot end the edit and says so.
    @Test(arguments: [ContainerFormat.mp4, .mov])
    func theDolbyVisionRecordingIsExact(format: ContainerFormat) throws {
        let input = RealMedia.bundledDirectory + "/androidx_media/dolbyVision-hdr.MOV"
        let scratch = try Scratch("dolby-vision")
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        #expect(!result.warnings.contains { $0.contains("edit list") }, "\(result.warnings)")
        #expect(try Lossless.problems(input: input, output: output, primingMayShow: false).isEmpty)
        let duration = try #require(Double(try Oracle.format(output)["duration"] as? String ?? ""))
        #expect(abs(duration - 64.0 / 600) < 0.001)

        let fragmented = scratch.file("fragmented.\(format.fileExtension)")
        let options = try RemuxJob.Options(format: format, fragmented: true)
        let warned = try RemuxJob(input: input, output: fragmented, options: options).run(JobContext()).warnings
        #expect(warned.contains { $0.contains("track 0 (hevc): 1 frame that the input's edit list hides") })
    }
}
