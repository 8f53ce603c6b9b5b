import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// An H.264/H.265 input for the frame decode tests.
enum VideoSource: String, CaseIterable, Sendable, CustomStringConvertible {
    case h264AnnexB, h264BFramesMP4, h264TS, hevcAnnexB, hevcMP4, h264High444, h264Interlaced, h264FullRange
    case hevcMain10

    var description: String { rawValue }

    /// GStreamer 1.22's y4mdec reads neither 10-bit samples nor the `XCOLORRANGE` field: it refuses
    /// ffmpeg's own Y4M of these two as well, so ffprobe is their second reader.
    var gstreamerReadsY4M: Bool { self != .h264FullRange && self != .hevcMain10 }

    func path() throws -> String {
        switch self {
        case .h264AnnexB: return try Fixtures.h264AnnexB()
        case .h264BFramesMP4: return try Fixtures.h264AacMP4()
        case .h264TS: return try Fixtures.h264AacTS()
        case .hevcAnnexB: return try Fixtures.hevcAnnexB()
        case .hevcMP4: return try Fixtures.hevcMP4()
        case .h264High444: return try Fixtures.h264High444MP4()
        case .h264Interlaced: return try Fixtures.h264InterlacedMP4()
        case .h264FullRange:
            return try Fixtures.make(
                "h264_fullrange.mp4",
                [
                    "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30000/1001:duration=1", "-pix_fmt", "yuvj420p",
                    "-c:v", "libx264", "-preset", "ultrafast", "-f", "mp4",
                ])
        case .hevcMain10:
            return try Fixtures.make(
                "hevc_main10.mp4",
                [
                    "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-pix_fmt", "yuv420p10le",
                    "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-f", "mp4",
                ])
        }
    }
}

/// decode of H.264/H.265 to frames, judged by the ffmpeg tool's own decode of the same input: the same
/// bytes (Y4M header included) and the frame count ffprobe counts.
@Suite struct VideoDecodeTests {
    /// What `ffmpeg` writes for the first video track of `path` with `format` (and `pixelFormat`), every
    /// decoded frame once (`-fps_mode passthrough`).
    static func oracle(_ path: String, format: String, pixelFormat: [String] = []) throws -> Data {
        try Command.run(
            "ffmpeg",
            ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-strict", "-1"] + pixelFormat
                + ["-f", format, "-"]
        ).stdout
    }

    /// Frames ffprobe decodes from the first video track.
    static func frameCount(_ path: String) throws -> Int {
        let output = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", path,
            ])
        // MPEG-TS lists the stream again under its program: the first line is the count.
        return output.text.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    static func decode(_ input: String, to output: String, _ values: [String: String]) throws -> DecodeResult {
        try DecodeJob(input: input, output: output, options: try .init(parsing: values)).run(JobContext())
    }

    @Test(arguments: VideoSource.allCases)
    func y4mIsWhatFFmpegWrites(_ source: VideoSource) throws {
        let scratch = try Scratch("decodey4m")
        let input = try source.path()
        let output = scratch.file("output.y4m")
        let result = try Self.decode(input, to: output, ["format": "y4m"])
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        let expected = try Self.oracle(input, format: "yuv4mpegpipe")
        #expect(written.count == expected.count)
        #expect(written == expected, "the Y4M differs from ffmpeg's")
        #expect(result.frames == Int64(try Self.frameCount(input)))
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["width"] as? Int == result.width)
        #expect(stream["height"] as? Int == result.height)
        // Y4M has no separate name for full range (`yuvj420p`): its header says `XCOLORRANGE=FULL`.
        #expect(stream["pix_fmt"] as? String == result.pixelFormat?.replacingOccurrences(of: "yuvj", with: "yuv"))
        if source.gstreamerReadsY4M { #expect(try Parsers.gstreamerProblems(output, streams: 1) == []) }
    }

    @Test func rawPlanesAndNV12AreWhatFFmpegWrites() throws {
        let scratch = try Scratch("decoderaw")
        let input = try Fixtures.h264AacMP4()
        let planar = try Self.decode(input, to: scratch.file("output.yuv"), ["format": "yuv"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.file("output.yuv")))
                == Self.oracle(input, format: "rawvideo"))
        #expect(planar.pixelFormat == "yuv420p")
        let nv12 = try Self.decode(input, to: scratch.file("output.nv12"), ["format": "nv12"])
        let expected = try Self.oracle(input, format: "rawvideo", pixelFormat: ["-pix_fmt", "nv12"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.file("output.nv12"))) == expected)
        #expect(nv12.pixelFormat == "nv12")
        #expect(nv12.frames == 90)
        #expect(Int64(expected.count) == Int64(320 * 240 * 3 / 2) * (nv12.frames ?? 0))
        #expect(nv12.frameRate == "30/1")
        #expect(nv12.width == 320 && nv12.height == 240)
    }

    /// Without a format, a file with audio still decodes its AAC to WAV and a video-only file goes to
    /// Y4M, named so.
    @Test func theDefaultFollowsTheInput() throws {
        let scratch = try Scratch("decodedefault")
        let result = try Self.decode(try Fixtures.h264AnnexB(), to: scratch.file("output.wav"), [:])
        #expect(result.outputs == [scratch.file("output.y4m")])
        #expect(result.frames == 90)
        #expect(try scratch.listing() == ["output.y4m"])
        let audio = try Self.decode(try Fixtures.h264AacMP4(), to: scratch.file("audio.wav"), [:])
        #expect(audio.outputs == [scratch.file("audio.wav")])
        #expect(audio.sampleRate == 48000 && audio.frames == nil)
    }

    @Test func refusesWhatItCannotDecode() throws {
        let scratch = try Scratch("decodevideobad")
        let error = #expect(throws: MediaError.self) {
            try Self.decode(try Fixtures.adts(), to: scratch.file("output.y4m"), ["format": "y4m"])
        }
        #expect(error?.code == .missingStream)
        let conflict = #expect(throws: MediaError.self) {
            try DecodeJob.Options(parsing: ["format": "y4m", "sample_format": "f32le"])
        }
        #expect(conflict?.code == .conflictingOptions)
        let unknown = #expect(throws: MediaError.self) { try DecodeJob.Options(parsing: ["format": "rgb"]) }
        #expect(unknown?.code == .invalidOption)
        #expect(try scratch.listing() == [])
    }
}
