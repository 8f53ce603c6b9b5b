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
        for command in [
            "probe", "remux", "demux", "package", "mux", "encode", "decode", "transcode", "thumbnails", "waveform",
            "repair",
        ] {
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

    /// `mediad package IN -o DIR` writes the tree (manifest, a folder per track) and prints every output;
    /// a bad option is refused before anything is written.
    @Test func packageWritesAFolderPerTrack() throws {
        let scratch = try Scratch("cli")
        let result = try mediad(
            "package", try Fixtures.h264AacMP4(), "-o", scratch.file("hls"), "--segment-duration", "1")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("hls")).sorted() == [
                "240p", "audio", "master.m3u8",
            ])
        #expect(result.text.split(separator: "\n").contains { $0.hasSuffix("hls/240p/seg_00003.m4s") })
        let refused = try mediad(
            "package", try Fixtures.h264AacMP4(), "-o", scratch.file("dash"), "--format", "dash", "--segment-format",
            "ts")
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: invalid_option: segment_format=ts is for HLS only"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("dash")))
    }

    /// `--renditions` encodes a ladder: a rendition taller than the 320x240 source is skipped with a warning
    /// on stderr, and `--help` lists the rendition names.
    @Test func packageEncodesALadder() throws {
        let scratch = try Scratch("cli")
        let result = try mediad(
            "package", try Fixtures.h264AacMP4(), "-o", scratch.file("abr"), "--renditions", "360p,240p", "--preset",
            "ultrafast")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("abr")).sorted() == [
                "240p", "audio", "master.m3u8",
            ])
        #expect(result.stderr.contains("rendition 360p (640x360) is larger than the source's 320x240"))
        let help = try mediad("package", "--help")
        #expect(help.text.contains("--renditions") && help.text.contains("1440p"))
    }

    @Test func failuresPrintOneErrorLineWithACode() throws {
        let scratch = try Scratch("cli")
        let text = try scratch.write("notes.mp4", Array("#EXTM3U\nsegment.ts\n".utf8))
        let refused = try mediad("remux", text, "-o", scratch.file("out.mp4"))
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: unsupported_format: the input is an HLS playlist, not a media format this job accepts (MP4/MOV, Matroska, MPEG-TS, FLV, ASF, WAV, ADTS AAC, H.264 Annex-B, H.265 Annex-B, raw MPEG-4 video)\n"
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

    @Test func muxEncodeAndDecodeFromTheCommandLine() throws {
        let scratch = try Scratch("cli")
        let clip = scratch.file("clip.mp4")
        let muxed = try mediad(
            "mux", "--audio", try Fixtures.adts(), "--video", try Fixtures.h264AnnexB(), "-o", clip, "--fps", "30")
        #expect(muxed.status == 0, "\(muxed.stderr)")
        #expect(try Oracle.streams(clip).compactMap { $0["codec_name"] as? String }.sorted() == ["aac", "h264"])

        let voice = scratch.file("voice.m4a")
        let encoded = try mediad("encode", try Fixtures.wav(), "-o", voice, "--bitrate", "128k", "--json")
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let result = try JSONSerialization.jsonObject(with: encoded.stdout) as? [String: Any]
        #expect(result?["bitrate"] as? Int == 128_000)
        #expect(try Oracle.format(voice)["format_name"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")

        let back = scratch.file("voice.wav")
        let decoded = try mediad("decode", voice, "-o", back)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try Oracle.streams(back).first?["duration_ts"] as? Int == 88200)

        let nothing = try mediad("mux", "-o", scratch.file("empty.mp4"))
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "error: invalid_option: mux needs an audio input, a video input or both\n")
        let partial = try scratch.write("odd.pcm", [1, 2, 3])
        let odd = try mediad("encode", partial, "-o", scratch.file("odd.m4a"))
        #expect(odd.stderr.hasPrefix("error: partial_frame:"))
    }
}

/// `mediad serve` flags at the edges of their types: each is refused with the flag's name, never a trap,
/// and the server does not start.
@Suite struct ServeFlagTests {
    func serve(_ arguments: [String]) throws -> Command.Output {
        let scratch = try Scratch("serve-flags")
        return try Command.run(
            CommandLineTests.binary, ["serve", "--port", "0", "--data-dir", scratch.file("data")] + arguments,
            allowFailure: true)
    }

    @Test func sizesAndDurationsPastTheirTypesAreRefused() throws {
        let refused: [([String], String)] = [
            (["--max-upload", "99999999999T"], "--max-upload"),
            (["--max-upload", "9223372036854775807K"], "--max-upload"),
            (["--header-timeout", "1e300"], "--header-timeout"),
            (["--body-timeout", "99999999999d"], "--body-timeout"),
            (["--send-timeout", "0"], "--send-timeout"), (["--min-upload-rate", "-1"], "--min-upload-rate"),
            (["--max-connections", "0"], "--max-connections"),
            (["--max-connections", "99999999999999999999"], "max-connections"),
            (["--max-streams", "0"], "--max-streams"), (["--max-streams-per-client", "0"], "--max-streams-per-client"),
            (["--max-connections", "10", "--max-streams", "10"], "--max-streams must be less than --max-connections"),
            (["--event-heartbeat", "0"], "--event-heartbeat"),
            (["--max-fetches", "0"], "--max-fetches must be an integer from 1 to 256"),
            (["--max-fetches", "257"], "--max-fetches must be an integer from 1 to 256"),
            (["--input-timeout", "0"], "--input-timeout must be more than 0"),
            (["--input-timeout", "1e300"], "--input-timeout must be a duration"),
        ]
        for (arguments, name) in refused {
            let result = try serve(arguments)
            // 64: a usage error; a crash would end with the signal's number.
            #expect(result.status == 64, "\(arguments): status \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(name), "\(arguments): \(result.stderr)")
        }
    }

    /// More connections than the descriptor limit can carry is refused at start, not left to fail under load.
    @Test func moreConnectionsThanDescriptorsIsRefused() throws {
        let scratch = try Scratch("serve-flags")
        let result = try Command.run(
            "/usr/bin/prlimit",
            [
                "--nofile=256:256", "--", CommandLineTests.binary, "serve", "--port", "0", "--data-dir",
                scratch.file("data"),
                "--max-connections", "500",
            ],
            allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("--max-connections 500 needs 1072 open files"), "\(result.stderr)")
    }
}
