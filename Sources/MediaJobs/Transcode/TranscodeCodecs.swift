import CFFmpeg
import MediaCore

extension TranscodeJob {
    /// What the video track becomes.
    public enum VideoCodec: String, Sendable, Codable, CaseIterable {
        case h264, hevc, av1, vp9
        /// The input's video packets unchanged.
        case copy
        /// No video track.
        case none

        /// Whether frames are decoded and encoded again.
        var reencodes: Bool { self != .copy && self != .none }

        /// The libav encoder that writes it.
        var encoderName: String? {
            switch self {
            case .h264: "libx264"
            case .hevc: "libx265"
            case .av1: "libsvtav1"
            case .vp9: "libvpx-vp9"
            case .copy, .none: nil
            }
        }

        /// The output sizes the encoder takes, found against each library: x264 codes any side up to
        /// 16384; x265 gives a side under 32 a 16-pixel CTU, which it refuses as soon as the size, rate or
        /// bit rate needs level 5 or above, so it takes 32 and up (and far over 16384, which is mediad's own
        /// cap); SVT-AV1 takes 64 to 16384 wide and 64 to 8704 tall; Debian's libvpx is built with a
        /// 16384x16384 limit, past which it reports a failed allocation. libav's bound on a picture applies
        /// to all. `width` and `height` themselves start at 16 (`Options.dimensions`).
        var sizeLimit: PictureSizeLimit? {
            switch self {
            case .h264: PictureSizeLimit("h264 (libx264)", widths: 1...16384, heights: 1...16384)
            case .hevc: PictureSizeLimit("hevc (libx265)", widths: 32...16384, heights: 32...16384)
            case .av1: PictureSizeLimit("av1 (SVT-AV1)", widths: 64...16384, heights: 64...8704)
            case .vp9: PictureSizeLimit("vp9 (libvpx)", widths: 1...16384, heights: 1...16384)
            case .copy, .none: nil
            }
        }

        var codecID: AVCodecID? {
            switch self {
            case .h264: AV_CODEC_ID_H264
            case .hevc: AV_CODEC_ID_HEVC
            case .av1: AV_CODEC_ID_AV1
            case .vp9: AV_CODEC_ID_VP9
            case .copy, .none: nil
            }
        }

        /// The quality used when neither `crf` nor `video_bitrate` is given: each encoder's own default
        /// (x264 23, x265 28, SVT-AV1 35) and libvpx's usual constant-quality value (31).
        var defaultCRF: Int {
            switch self {
            case .hevc: 28
            case .av1: 35
            case .vp9: 31
            default: 23
            }
        }

        /// The range of `crf`: 0–51 for x264 and x265, 0–63 for SVT-AV1 and libvpx.
        var crfRange: ClosedRange<Int> { self == .av1 || self == .vp9 ? 0...63 : 0...51 }

        /// The profiles `profile` may name for this codec.
        var profiles: [VideoProfile] {
            switch self {
            case .h264: [.baseline, .main, .high]
            case .hevc: [.main, .main10]
            default: []
            }
        }

        /// The levels `level` may name for this codec (ITU-T H.264 Annex A, H.265 Annex A).
        var levels: [String] {
            switch self {
            case .h264:
                [
                    "1", "1b", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "3", "3.1", "3.2", "4", "4.1", "4.2", "5", "5.1",
                    "5.2", "6", "6.1", "6.2",
                ]
            case .hevc: ["1", "2", "2.1", "3", "3.1", "4", "4.1", "5", "5.1", "5.2", "6", "6.1", "6.2"]
            default: []
            }
        }

        /// Whether the codec has B-frames to count (`bframes`).
        var hasBFrames: Bool { self == .h264 || self == .hevc }

        /// The pixel formats the encoder accepts, as libav lists them.
        var pixelFormats: [AVPixelFormat] {
            guard let name = encoderName, let codec = avcodec_find_encoder_by_name(name),
                var format = codec.pointee.pix_fmts
            else { return [] }
            var formats: [AVPixelFormat] = []
            while format.pointee != AV_PIX_FMT_NONE {
                formats.append(format.pointee)
                format += 1
            }
            return formats
        }
    }

    /// An H.264 or HEVC profile.
    public enum VideoProfile: String, Sendable, Codable, CaseIterable {
        case baseline, main, high, main10
    }

    /// The pixel formats `pixel_format` may ask for.
    public enum PixelFormat: String, Sendable, Codable, CaseIterable {
        case yuv420p, yuv422p, yuv444p, yuv420p10le, nv12

        var libavFormat: AVPixelFormat { av_get_pix_fmt(rawValue) }

        /// Whether it is a 4:2:0 format of 8 bits, what H.264 baseline, main and high and HEVC main code.
        var isEightBit420: Bool { self == .yuv420p || self == .nv12 }
    }

    /// What the audio track becomes.
    public enum AudioCodec: String, Sendable, Codable, CaseIterable {
        case aac, opus, mp3
        /// The input's audio packets unchanged.
        case copy
        /// No audio track.
        case none

        var reencodes: Bool { self != .copy && self != .none }

        /// The libav encoder that writes it.
        var encoderName: String? {
            switch self {
            case .aac: "aac"
            case .opus: "libopus"
            case .mp3: "libmp3lame"
            case .copy, .none: nil
            }
        }

        var codecID: AVCodecID? {
            switch self {
            case .aac: AV_CODEC_ID_AAC
            case .opus: AV_CODEC_ID_OPUS
            case .mp3: AV_CODEC_ID_MP3
            case .copy, .none: nil
            }
        }

        /// The bit rate used when `audio_bitrate` is not given.
        var defaultBitRate: Int { self == .opus ? 96000 : 128_000 }

        /// The most channels the encoder takes (MP3 is mono or stereo).
        var maximumChannels: Int { self == .mp3 ? 2 : 8 }
    }

    /// Whether a display-matrix rotation is applied to the pixels or kept as metadata.
    public enum Rotation: String, Sendable, Codable, CaseIterable {
        /// Turn the pictures upright and write no rotation.
        case auto
        /// Leave the pictures as coded and carry the rotation over (MP4 and MOV store it).
        case keep
    }

    /// A quality score of the output's video against the source's.
    public enum QualityMeasure: String, Sendable, Codable, CaseIterable {
        case none, ssim, psnr
    }

    /// `preset`: x264's and x265's names, mapped to SVT-AV1 presets and libvpx `cpu-used` values.
    public enum Preset: String, Sendable, Codable, CaseIterable {
        case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow

        /// SVT-AV1's preset (0 slowest … 13 fastest) of about the same trade-off.
        var svtPreset: Int { [13, 12, 11, 10, 9, 8, 6, 4, 2][Self.allCases.firstIndex(of: self)!] }

        /// libvpx-vp9's `cpu-used` (0 slowest … 8 fastest) under the `good` deadline.
        var vpxCPUUsed: Int { [8, 7, 6, 5, 4, 3, 2, 1, 0][Self.allCases.firstIndex(of: self)!] }
    }
}
