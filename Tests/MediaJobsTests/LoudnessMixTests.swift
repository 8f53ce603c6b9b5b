import Foundation
@testable import MediaJobs
import TestSupport
import Testing

/// Loudness normalisation measures what is encoded: the audio after its mix to the output's channels.
/// A 5.1 source normalised to -16 LUFS and mixed down to stereo used to land at -13 LUFS, its gain worked
/// out on the six channels (ebur128 weighs the surrounds up) and applied before the downmix.
@Suite struct LoudnessMixTests {
    /// Four seconds of a different tone on every channel of `layout` (the LFE, where there is one, carries
    /// a low one), as 48 kHz FLAC in Matroska.
    static func source(_ layout: String, channels: Int) throws -> String {
        let tones = (0..<channels).map { index in
            String(format: "0.12*sin(2*PI*%d*t)", channels >= 6 && index == 3 ? 60 : 330 + 110 * index)
        }
        return try Fixtures.make(
            "loudness-\(layout).mkv",
            [
                "-f", "lavfi", "-i", "aevalsrc=\(tones.joined(separator: "|")):c=\(layout):s=48000:d=4", "-c:a",
                "flac", "-f", "matroska",
            ])
    }

    @Test(arguments: [("mono", 1), ("stereo", 2), ("5.1", 6), ("7.1", 8)])
    func everyLayoutLandsOnTheTargetAfterItsMix(layout: String, channels: Int) throws {
        let input = try Self.source(layout, channels: channels)
        for outputChannels in [2, 1] {
            for target in [-16, -23, -30] {
                let scratch = try Scratch("loudness-mix")
                let (result, output) = try TranscodeJobTests.transcode(
                    input, ["format": "m4a", "channels": String(outputChannels), "loudness": String(target)],
                    in: scratch)
                let measured = try TranscodeJobTests.loudness(output).integrated
                let report = try #require(result.loudness)
                #expect(
                    abs(measured - Double(target)) <= 1,
                    "\(layout) to \(outputChannels) channel(s) at \(target) LUFS: ffmpeg measured \(measured)")
                #expect(
                    abs((report.output?.integrated ?? .nan) - measured) <= 0.3,
                    "the job's own measurement of its output: \(report.output?.integrated ?? .nan)")
            }
        }
    }
}
