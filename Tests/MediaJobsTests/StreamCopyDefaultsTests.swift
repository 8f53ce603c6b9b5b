import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Two stream-copy defaults of the ffmpeg CLI that a libav caller must set by hand
/// (`docs/fftools-defaults.md`): a default track among several of a kind, and no WAV block alignment on
/// MP3.
@Suite struct StreamCopyDefaultsTests {
    /// A TS with two audio tracks, neither marked default, into Matroska: the first becomes the default
    /// (mkvmerge, not libav, reads the flags), the second stays as it was.
    @Test func theFirstOfSeveralTracksBecomesTheDefault() throws {
        let input = try Fixtures.make(
            "two-audio.ts",
            [
                "-f", "lavfi", "-i", "sine=duration=2", "-f", "lavfi", "-i", "sine=frequency=600:duration=2", "-map",
                "0", "-map", "1", "-c:a", "aac", "-f", "mpegts",
            ])
        let scratch = try Scratch("defaults")
        let output = scratch.file("out.mkv")
        _ = try RemuxJob(input: input, output: output, options: try .init(format: .mkv)).run(JobContext())
        let (problems, tracks) = try Parsers.mkvmerge(output, tracks: 2)
        #expect(problems.isEmpty, "\(problems)")
        let defaults = tracks.map { ($0["properties"] as? [String: Any])?["default_track"] as? Bool }
        #expect(defaults == [true, false], "\(defaults)")
    }

    /// MP3 from WAV carries the WAV's block alignment (1152); ASF stores it in its stream header unless it
    /// is cleared, as the CLI's stream copy clears it: the two ASF files are then the same byte for byte.
    @Test func mp3LosesTheBlockAlignmentOfItsWAVFraming() throws {
        let input = try Fixtures.make(
            "mp3-in.wav", ["-f", "lavfi", "-i", "sine=duration=2", "-c:a", "libmp3lame", "-f", "wav"])
        let scratch = try Scratch("block-align")
        let output = scratch.file("out.asf")
        _ = try RemuxJob(input: input, output: output, options: try .init(format: .asf)).run(JobContext())
        let reference = scratch.file("ffmpeg.asf")
        try Command.run("ffmpeg", ["-v", "error", "-i", input, "-c", "copy", reference])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: reference)))
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"))
    }
}
