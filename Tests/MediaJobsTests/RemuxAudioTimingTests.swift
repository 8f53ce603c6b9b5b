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
}
