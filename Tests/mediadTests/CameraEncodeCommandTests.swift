import Foundation
import TestSupport
import Testing

/// `mediad encode` with camera frames as users run it: the format from the extension, `--video` and
/// `--audio` for one muxed file, the contract in `--help`.
@Suite struct CameraEncodeCommandTests {
    func mediad(_ arguments: [String]) throws -> Command.Output {
        try Command.run(CommandLineTests.binary, arguments, allowFailure: true)
    }

    static func frames() throws -> String {
        try Fixtures.make(
            "camera_cli.nv12",
            ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-pix_fmt", "nv12", "-f", "rawvideo"])
    }

    static let geometry = ["--pixel-format", "nv12", "--width", "160", "--height", "120", "--fps", "25"]

    @Test func encodesFramesToAnH265StreamNamedByItsExtension() throws {
        let scratch = try Scratch("cli")
        let output = scratch.file("camera.h265")
        let run = try mediad(
            ["encode", try Self.frames(), "-o", output, "--preset", "ultrafast", "--json"] + Self.geometry)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let track = try #require((result["tracks"] as? [[String: Any]])?.first)
        #expect(
            track["codec"] as? String == "hevc" && track["frames"] as? Int == 50 && result["muxer"] as? String == "hevc"
        )
        #expect(try Oracle.streams(output).first?["codec_name"] as? String == "hevc")
        #expect(try Parsers.gstreamerProblems(output, streams: 1) == [])
    }

    @Test func muxesVideoAndAudioIntoMatroska() throws {
        let scratch = try Scratch("cli")
        let pcm = try Fixtures.make(
            "camera_cli.pcm", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=2", "-f", "s16le"])
        let output = scratch.file("clip.mkv")
        let run = try mediad(
            [
                "encode", "--video", try Self.frames(), "--audio", pcm, "-o", output, "--preset", "ultrafast",
                "--sample-rate", "16000", "--channels", "1", "--sample-format", "s16le",
            ] + Self.geometry)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Oracle.streams(output).map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(try Parsers.mkvmerge(output, tracks: 2).problems == [])
    }

    @Test func refusesMissingGeometryAndDocumentsTheContract() throws {
        let scratch = try Scratch("cli")
        let run = try mediad(["encode", try Self.frames(), "-o", scratch.file("x.h264"), "--pixel-format", "nv12"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: invalid_option: raw nv12 frames carry no header: give width, height, fps"))
        #expect(try scratch.listing() == [])
        let help = try mediad(["encode", "--help"]).text
        for flag in [
            "--pixel-format", "--width", "--fps", "--video-bitrate", "--gop", "--video <video>", "--audio <audio>",
        ] {
            #expect(help.contains(flag), "\(flag)")
        }
    }
}
