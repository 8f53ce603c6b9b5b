import Foundation
import TestSupport
import Testing

/// Drives the real `mediad` binary the way users and CI scripts do.
@Suite struct CommandLineTests {
    /// The binary under test: `MEDIAD_BIN` (set by `make test`), else the debug build beside the sources.
    static var binary: String {
        if let configured = ProcessInfo.processInfo.environment["MEDIAD_BIN"] { return configured }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/mediad").path
    }

    func mediad(_ arguments: String...) throws -> Command.Output {
        try Command.run(Self.binary, arguments, allowFailure: true)
    }

    @Test func helpListsEveryCommand() throws {
        let help = try mediad("--help")
        #expect(help.status == 0)
        for command in ["probe", "remux", "demux"] {
            #expect(help.text.contains(command))
            let sub = try mediad(command, "--help")
            #expect(sub.status == 0)
            #expect(sub.text.contains("Example"))
        }
    }

    @Test func probePrintsJSONAndASummary() throws {
        let input = try Fixtures.h264AacMP4()
        let json = try mediad("probe", input, "--json")
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        #expect((object?["tracks"] as? [Any])?.count == 2)
        let text = try mediad("probe", input)
        #expect(text.text.contains("h264, High, 320x240, 30/1 fps"))
        #expect(text.text.contains("aac, LC, 48000 Hz, stereo"))
    }

    @Test func remuxTakesTheFormatFromTheExtension() throws {
        let scratch = try Scratch("cli")
        let output = scratch.file("talk.mkv")
        let result = try mediad("remux", try Fixtures.h264AacMP4(), "-o", output)
        #expect(result.status == 0)
        #expect(result.text == output + "\n")
        #expect(try Oracle.format(output)["format_name"] as? String == "matroska,webm")
        #expect(result.stderr.contains("warning: track 1: mkv cannot signal the 1024-sample aac encoder delay"))
    }

    @Test func remuxReportsCutPointsAsJSON() throws {
        let scratch = try Scratch("cli")
        let result = try mediad(
            "remux", try Fixtures.h264AacMP4(), "-o", scratch.file("clip.mp4"), "--start", "1.5", "--end", "1.6",
            "--json")
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(object?["cut_start"] as? Double == 1.0)
        #expect(object?["cut_end"] as? Double == 2.0)
    }

    @Test func demuxWritesTheElementaryStreams() throws {
        let scratch = try Scratch("cli")
        let result = try mediad("demux", try Fixtures.h264AacMP4(), "-o", scratch.file("parts"))
        #expect(result.status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("parts")).sorted()
                == ["audio.aac", "info.json", "video.h264"])
    }

    @Test func failuresPrintOneErrorLineWithACode() throws {
        let scratch = try Scratch("cli")
        let text = try scratch.write("notes.mp4", Array("#EXTM3U\nsegment.ts\n".utf8))
        let refused = try mediad("remux", text, "-o", scratch.file("out.mp4"))
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: unsupported_format: the input is an HLS playlist, not a media format this job accepts (MP4/MOV, Matroska, MPEG-TS, FLV, ASF, WAV, ADTS AAC, H.264 Annex-B, H.265 Annex-B)\n"
        )
        let unknownExtension = try mediad("remux", try Fixtures.h264AacMP4(), "-o", scratch.file("out.xyz"))
        #expect(unknownExtension.status == 1)
        #expect(unknownExtension.stderr.hasPrefix("error: invalid_option: cannot tell the format from"))
        let badValue = try mediad("remux", try Fixtures.h264AacMP4(), "-o", scratch.file("out.mp4"), "--tracks", "subs")
        #expect(badValue.status == 1)
        #expect(badValue.stderr.hasPrefix("error: invalid_option: invalid value 'subs' for option tracks"))
        let missing = try mediad("probe", scratch.file("absent.mp4"))
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: io_error:"))
        #expect(try scratch.listing() == ["notes.mp4"])
    }
}
