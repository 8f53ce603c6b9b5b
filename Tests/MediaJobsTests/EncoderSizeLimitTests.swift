import CFFmpeg
import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// The sizes each encoder takes, as `VideoCodec.sizeLimit` and `ImageEncoder.Format.sizeLimit` state them,
/// pinned against the libraries themselves (each edge and one step past it, encoded for real), and the
/// options and jobs that refuse what is past them with `invalid_option` instead of the encoder's error.
@Suite struct EncoderSizeLimitTests {
    /// Whether libav's `name` encoder opens at `width`×`height` and encodes one grey frame.
    static func encodes(_ name: String, _ width: Int, _ height: Int, options: [String: String]) -> Bool {
        do {
            let encoder = try Encoder(named: name, options: options) { context in
                context.pointee.width = Int32(width)
                context.pointee.height = Int32(height)
                context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
                context.pointee.time_base = AVRational(num: 1, den: 25)
                context.pointee.framerate = AVRational(num: 25, den: 1)
            }
            let frame = Frame()
            frame.pointer.pointee.width = Int32(width)
            frame.pointer.pointee.height = Int32(height)
            frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pts = 0
            try LibavError.check(av_frame_get_buffer(frame.pointer, 0), "allocating a frame")
            let planes = frame.pointer.pointee.data
            let strides = frame.pointer.pointee.linesize
            for (plane, stride, rows) in [
                (planes.0, strides.0, height), (planes.1, strides.1, (height + 1) / 2),
                (planes.2, strides.2, (height + 1) / 2),
            ] {
                if let plane { memset(plane, 128, Int(stride) * rows) }
            }
            try encoder.send(frame)
            try encoder.send(nil)
            let packet = Packet()
            var packets = 0
            while try encoder.receive(into: packet) { packets += 1 }
            return packets > 0
        } catch {
            return false
        }
    }

    static let fastest: [TranscodeJob.VideoCodec: [String: String]] = [
        .h264: ["preset": "ultrafast"], .hevc: ["preset": "ultrafast", "x265-params": "log-level=none"],
        .av1: ["preset": "13"], .vp9: ["cpu-used": "8", "deadline": "realtime"],
    ]

    /// Each side at the codec's edge, and one even step past it, the other side as small as it may be.
    @Test(arguments: [
        (TranscodeJob.VideoCodec.h264, 16384, 16), (.h264, 16386, 16), (.h264, 16, 16384), (.h264, 16, 16386),
        (.h264, 2, 2), (.vp9, 2, 2),
        (.hevc, 32, 8192), (.hevc, 30, 8192), (.hevc, 16384, 32), (.hevc, 32, 16384),
        (.av1, 64, 64), (.av1, 62, 64), (.av1, 64, 62), (.av1, 16384, 64), (.av1, 16386, 64), (.av1, 64, 8704),
        (.av1, 64, 8706),
        (.vp9, 16384, 16), (.vp9, 16386, 16), (.vp9, 16, 16384), (.vp9, 16, 16386),
    ])
    func codecLimitsAreTheLibrariesOwn(_ codec: TranscodeJob.VideoCodec, _ width: Int, _ height: Int) throws {
        let limit = try #require(codec.sizeLimit)
        let allowed = (try? limit.check(width: width, height: height, what: "the output")) != nil
        let library = Self.encodes(codec.encoderName!, width, height, options: Self.fastest[codec]!)
        #expect(allowed == library, "\(codec) \(width)x\(height): mediad \(allowed), \(codec.encoderName!) \(library)")
    }

    /// libwebp codes at most 16383 a side, mjpeg 65500.
    @Test(arguments: [
        (ImageEncoder.Format.webp, 16383, 16), (.webp, 16384, 16), (.jpeg, 65500, 16), (.jpeg, 65502, 16),
    ])
    func imageLimitsAreTheLibrariesOwn(_ format: ImageEncoder.Format, _ width: Int, _ height: Int) {
        let allowed = (try? format.sizeLimit.check(width: width, height: height, what: "the picture")) != nil
        let name = format == .webp ? "libwebp" : "mjpeg"
        #expect(allowed == Self.encodesImage(name, width, height), "\(format) \(width)x\(height)")
    }

    /// Like `encodes`, for the image encoders and their pixel formats.
    static func encodesImage(_ name: String, _ width: Int, _ height: Int) -> Bool {
        do {
            let format = name == "mjpeg" ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P
            let encoder = try Encoder(named: name) { context in
                context.pointee.width = Int32(width)
                context.pointee.height = Int32(height)
                context.pointee.pix_fmt = format
                context.pointee.time_base = AVRational(num: 1, den: 25)
            }
            let frame = Frame()
            frame.pointer.pointee.width = Int32(width)
            frame.pointer.pointee.height = Int32(height)
            frame.pointer.pointee.format = format.rawValue
            try LibavError.check(av_frame_get_buffer(frame.pointer, 0), "allocating a frame")
            try encoder.send(frame)
            return try encoder.receive(into: Packet())
        } catch {
            return false
        }
    }

    /// libav's own bound on a picture, as `av_image_check_size` applies it.
    @Test(arguments: [(16384, 16128), (16384, 16130), (16128, 16384), (16384, 16384), (8192, 8192), (1, 1)])
    func theLibavBoundIsAvImageCheckSize(_ width: Int, _ height: Int) {
        let libav = av_image_check_size(UInt32(width), UInt32(height), 0, nil) == 0
        #expect(PictureSizeLimit.libavTakes(width: width, height: height) == libav, "\(width)x\(height)")
    }

    @Test(arguments: [
        ["video_codec": "h264", "width": "16384", "height": "16384"],
        ["video_codec": "hevc", "format": "mkv", "width": "16", "height": "8720"],
        ["video_codec": "hevc", "format": "mkv", "height": "16"],
        ["video_codec": "av1", "format": "mkv", "width": "1280", "height": "8706"],
        ["video_codec": "av1", "format": "mkv", "width": "32"],
        ["format": "webm", "width": "16384", "height": "16384"],
    ])
    func transcodeRefusesSizesItsEncoderCannotTake(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try TranscodeJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption, "\(values)")
    }

    @Test func theLargestSizesAreTaken() throws {
        _ = try TranscodeJob.Options(parsing: ["video_codec": "h264", "width": "16384", "height": "16128"])
        _ = try TranscodeJob.Options(parsing: [
            "video_codec": "av1", "format": "mkv", "width": "16384", "height": "8704",
        ])
        _ = try TranscodeJob.Options(parsing: [
            "video_codec": "hevc", "format": "mkv", "width": "32", "height": "16384",
        ])
        _ = try WaveformJob.Options(parsing: ["width": "16384", "height": "16128"])
        _ = try ThumbnailsJob.Options(parsing: ["format": "webp", "width": "16383"])
    }

    @Test(arguments: [
        (JobKind.waveform, ["width": "16384", "height": "16384"]),
        (.thumbnails, ["format": "webp", "height": "16384"]),
        (.encode, ["pixel_format": "yuv420p", "width": "16384", "height": "16384", "fps": "30"]),
        (.encode, ["pixel_format": "yuv420p", "video_codec": "hevc", "width": "16", "height": "4224", "fps": "30"]),
    ])
    func otherKindsRefuseSizesTheirEncoderCannotTake(_ kind: JobKind, _ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try kind.options(parsing: values) }
        #expect(error?.code == .invalidOption, "\(kind) \(values)")
    }

    /// The size a one-sided `scale` gives, as admission predicts it from a probe, against libavfilter's.
    @Test(arguments: [(1080, 1920, 1280, 0), (853, 480, 0, 360), (641, 359, 1001, 0), (3840, 2160, 0, 240)])
    func scaledSizesAreLibavfiltersOwn(_ sourceWidth: Int, _ sourceHeight: Int, _ width: Int, _ height: Int) throws {
        let scratch = try Scratch("scaledsize")
        let output = scratch.file("scaled.y4m")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=s=\(sourceWidth)x\(sourceHeight):d=0.04", "-vf",
                "scale=\(width == 0 ? -2 : width):\(height == 0 ? -2 : height)", "-frames:v", "1", output,
            ])
        let stream = try #require(try Oracle.streams(output).first)
        let predicted = ScaledSize(
            width: width == 0 ? nil : width, height: height == 0 ? nil : height,
            source: (sourceWidth, sourceHeight))
        #expect(stream["width"] as? Int == predicted.width && stream["height"] as? Int == predicted.height)
    }

    /// A source under the 64 rows SVT-AV1 codes, its size kept: the job refuses it as it sets up the
    /// encoder, with the size and the limit.
    @Test func aSourceSizeTheEncoderCannotTakeFailsTheJobAsAnOption() throws {
        let scratch = try Scratch("sizelimit")
        let small = try Fixtures.make(
            "small_96x48.mp4",
            ["-f", "lavfi", "-i", "testsrc2=size=96x48:rate=25:duration=1", "-c:v", "libx264", "-f", "mp4"])
        let error = #expect(throws: MediaError.self) {
            try TranscodeJobTests.transcode(small, ["video_codec": "av1", "format": "mkv"], in: scratch)
        }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("96x48") == true && error?.message.contains("av1 (SVT-AV1)") == true)
    }
}
