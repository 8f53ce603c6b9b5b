import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Audio from a millisecond time base (Matroska) into MP4 keeps its frames exactly 1024 samples apart:
/// decode times are rebuilt from the samples each packet holds, as `ffmpeg -c copy` does. Rescaled one by
/// one they came out 1008 and 1056 ticks apart, and the `stts` took an entry per packet.
@Suite struct RemuxAudioTimingTests {
    @Test func millisecondAudioTimesAreRebuiltLikeTheFFmpegCLI() throws {
        let input = try Fixtures.make(
            "millisecond-audio.mkv",
            [
                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=4", "-c:a", "aac", "-f", "matroska",
            ])
        let scratch = try Scratch("audio-timing")
        let output = scratch.file("out.mp4")
        _ = try RemuxJob(input: input, output: output, options: try .init(format: .mp4)).run(JobContext())
        let reference = scratch.file("ffmpeg.mp4")
        try Command.run("ffmpeg", ["-v", "error", "-i", input, "-c", "copy", reference])
        let times = { (path: String) in try Oracle.packets(path, stream: "a:0").map { $0["dts"] as? Int ?? -1 } }
        let rebuilt = try times(output)
        #expect(rebuilt == (try times(reference)))
        let steps = zip(rebuilt.dropFirst(), rebuilt).map { $0 - $1 }
        #expect(steps.filter { $0 != 1024 }.count <= 2, "\(Set(steps))")
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"))
    }

    /// An AAC track whose edit hides the priming ends on its last sample in every ISO copy. With the mov
    /// muxer's millisecond movie timescale an edit of 60,413 samples (1,258.6 ms) was written as 1,258 ms,
    /// and a reader cut the last frame to 992 of its 1,021 samples; the output now counts movie time in a
    /// multiple of every track's timescale, so ffprobe sees every packet last as long as in the input.
    @Test(arguments: [ContainerFormat.mp4, .mov, .m4a])
    func anAudioEditEndsOnItsLastSample(format: ContainerFormat) throws {
        // The fixture's own edit is exact: its movie timescale is the sample rate.
        let input = try Fixtures.make(
            "unrounded-edit.mp4",
            [
                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1.2586", "-c:a", "aac",
                "-movie_timescale", "48000", "-f", "mp4",
            ])
        let durations = { (path: String) in try Oracle.packets(path, stream: "a:0").map { $0["duration"] as? Int } }
        let expected = try durations(input)
        #expect(
            expected.last == 1021, "the fixture's last frame is not cut where the test expects: \(expected.suffix(2))")
        let scratch = try Scratch("unrounded-edit-\(format)")
        let (output, _) = try remux(input, to: format, in: scratch)
        #expect(try durations(output) == expected)
        #expect(try Oracle.decodeAudio(output) == Oracle.decodeAudio(input))
    }

    /// Two audio packets on the same millisecond (a file cut and joined) used to fail the remux to MP4 with
    /// libav's "non monotonically increasing dts". The second one now goes one tick past the first, as the
    /// ffmpeg CLI puts it (every decode time is the CLI's), the job says what moved, and the decoded audio
    /// is the same.
    @Test func aRepeatedMillisecondIsMovedLikeTheFFmpegCLI() throws {
        let input = try Fixtures.make(
            "repeated-millisecond.mkv",
            [
                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=3", "-c:a", "aac",
                "-bsf:a", "setts=ts='if(eq(N,50),PREV_INPTS,PTS)'", "-f", "matroska",
            ])
        let repeated = try Oracle.packets(input, stream: "a:0").map { $0["dts"] as? Int ?? -1 }
        #expect(repeated[49] == repeated[50], "the fixture has no repeated time: \(repeated[45...55])")
        let scratch = try Scratch("repeated-millisecond")
        let (output, result) = try remux(input, to: .mp4, in: scratch)
        let reference = scratch.file("ffmpeg.mp4")
        try Command.run("ffmpeg", ["-v", "error", "-i", input, "-c", "copy", reference])
        let times = { (path: String) in try Oracle.packets(path, stream: "a:0").map { $0["dts"] as? Int ?? -1 } }
        let rebuilt = try times(output)
        #expect(rebuilt == (try times(reference)))
        #expect(zip(rebuilt.dropFirst(), rebuilt).allSatisfy { $0 > $1 })
        #expect(
            result.warnings.contains { $0.contains("1 packet whose decode time did not come after") },
            "\(result.warnings)")
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"))
    }

    /// Two MPEG-TS recordings joined with `cat` go back seconds where they meet: that is no rounding to
    /// move, and the job fails as `invalid_input` saying where, with nothing left at the output.
    @Test func twoRecordingsJoinedWithCatAreRefused() throws {
        let part = try Fixtures.make(
            "two-second-clip.ts",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=sample_rate=48000:duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                "-f", "mpegts",
            ])
        let scratch = try Scratch("joined-recordings")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: part))
        let joined = try scratch.write("joined.ts", Array(bytes + bytes))
        let failure = #expect(throws: MediaError.self) { try remux(joined, to: .mp4, in: scratch) }
        #expect(failure?.code == .invalidInput)
        #expect(failure?.message.contains("decode times go back by") == true, "\(failure?.message ?? "")")
        #expect(try Scratch.listingIsOnly(["joined.ts"], in: scratch))
    }
}
