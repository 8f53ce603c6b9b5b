import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Camera-frame options and inputs that cannot work are refused with the reason, before any work.
@Suite struct CameraEncodeOptionTests {
    static let frames = ["pixel_format": "nv12", "width": "160", "height": "120", "fps": "30"]

    static func refusal(_ values: [String: String]) -> MediaError? {
        do {
            _ = try EncodeJob.Options(parsing: values)
            return nil
        } catch {
            return error as? MediaError
        }
    }

    @Test(arguments: [
        (["crf": "20", "video_bitrate": "1M"], "alternatives"),
        (["profile": "baseline", "bframes": "2"], "no B-frames"),
        (["profile": "main10"], "no main10 profile"), (["width": "8"], "16 to 16384"),
        (["height": "20000"], "16 to 16384"), (["width": "161"], "must be even"), (["fps": "0"], "1 to 240"),
        (["fps": "241"], "1 to 240"), (["video_bitrate": "1k"], "bits per second"),
        (["video_bitrate": "1M", "max_bitrate": "500k"], "below video_bitrate"),
        (["buffer_size": "2M"], "give max_bitrate too"), (["level": "7"], "no level 7"),
        (["format": "h264", "video_codec": "hevc"], "does not fit"), (["format": "m4a"], "holds audio only"),
        (["pixel_format": "rgb24"], "yuv420p, nv12"),
    ])
    func refusesImpossibleVideoOptions(extra: [String: String], reason: String) throws {
        let error = try #require(Self.refusal(Self.frames.merging(extra) { $1 }))
        #expect(error.code == .invalidOption)
        #expect(error.message.contains(reason), "\(error.message)")
    }

    /// Raw frames say nothing of themselves: each missing description is named.
    @Test func namesWhatRawFramesLack() throws {
        let none = try #require(Self.refusal(["pixel_format": "yuv420p"]))
        #expect(none.code == .invalidOption && none.message.contains("give width, height, fps"), "\(none.message)")
        let some = try #require(Self.refusal(["pixel_format": "yuv420p", "width": "160"]))
        #expect(some.message.contains("give height, fps"), "\(some.message)")
        let noPixels = try #require(Self.refusal(["width": "160", "height": "120", "fps": "30", "crf": "20"]))
        #expect(noPixels.message.contains("give pixel_format"), "\(noPixels.message)")
        let videoFormat = try #require(Self.refusal(["format": "mkv"]))
        #expect(videoFormat.message.contains("for camera frames"), "\(videoFormat.message)")
    }

    /// Defaults: mp4 and h264 for frames (hevc for `.h265`), m4a for PCM as before; stored options decode
    /// to the same value.
    @Test func defaultsAndStoredOptions() throws {
        let video = try EncodeJob.Options(parsing: Self.frames)
        #expect(video.format == .mp4 && video.videoCodec == .h264)
        #expect(try EncodeJob.Options(parsing: Self.frames.merging(["format": "h265"]) { $1 }).videoCodec == .hevc)
        #expect(try EncodeJob.Options(parsing: [:]).format == .m4a)
        let stored = try JSONEncoder().encode(video)
        #expect(try JSONDecoder().decode(EncodeJob.Options.self, from: stored) == video)
    }

    /// A size that is not a whole number of frames is refused before anything is encoded.
    @Test func refusesAPartialFrame() throws {
        let scratch = try Scratch("camera")
        let input = try scratch.write("frames.nv12", [UInt8](repeating: 128, count: 160 * 120 * 3 / 2 * 2 + 7))
        let error = #expect(throws: MediaError.self) {
            try CameraFrames.encode(["file": input], Self.frames, in: scratch)
        }
        #expect(error?.code == .partialFrame)
        #expect(error?.message.contains("2 frame(s) and 7 byte(s) left over") == true, "\(error?.message ?? "")")
        #expect(try scratch.listing() == ["frames.nv12"])
    }

    /// Parts that do not fit the options: frames without `pixel_format`, frames and PCM into an Annex-B
    /// stream, `file` beside `video`.
    @Test func refusesPartsThatDoNotFit() throws {
        let scratch = try Scratch("camera")
        let frames = try CameraFrames.pattern("nv12")
        let pcm = try CameraMuxTests.beep()
        let cases: [([String: String], [String: String], String)] = [
            (["video": frames], CameraMuxTests.pcm, "give pixel_format"),
            (["video": frames, "audio": pcm], Self.frames.merging(["format": "h264"]) { $1 }, "holds video alone"),
            (["file": frames, "audio": pcm], Self.frames, "as parts 'video' and 'audio'"),
        ]
        for (inputs, values, reason) in cases {
            let error = #expect(throws: MediaError.self) { try CameraFrames.encode(inputs, values, in: scratch) }
            #expect(error?.code == .invalidOption)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        }
    }
}
