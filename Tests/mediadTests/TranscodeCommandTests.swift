import Foundation
import TestSupport
import Testing

/// `mediad transcode` as users run it: flags in kebab-case, the format from the extension, `--json`.
@Suite struct TranscodeCommandTests {
    func mediad(_ arguments: String...) throws -> Command.Output {
        try Command.run(CommandLineTests.binary, arguments, allowFailure: true)
    }

    @Test func transcodesToBaselineWithAFixedGOP() throws {
        let scratch = try Scratch("cli")
        let output = scratch.file("talk.mkv")
        let run = try mediad(
            "transcode", try Fixtures.h264AacMP4(), "-o", output, "--profile", "baseline", "--gop", "10",
            "--preset", "ultrafast", "--audio-codec", "opus", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let tracks = try #require(result["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["codec"] as? String } == ["h264", "opus"])
        #expect(result["muxer"] as? String == "matroska")
        let keys = try Command.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", output]
        ).text.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("1") }.map(\.offset)
        #expect(keys == [0, 10, 20, 30, 40, 50, 60, 70, 80])
        #expect(try Parsers.mkvmerge(output, tracks: 2).problems == [])
    }

    @Test func refusesConflictingRateControl() throws {
        let scratch = try Scratch("cli")
        let run = try mediad(
            "transcode", try Fixtures.h264AacMP4(), "-o", scratch.file("out.mp4"), "--crf", "20", "--video-bitrate",
            "2M")
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: invalid_option: crf (constant quality) and video_bitrate"))
        #expect(try scratch.listing() == [])
    }
}
