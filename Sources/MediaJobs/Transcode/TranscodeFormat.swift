import MediaCore

extension TranscodeJob {
    /// The containers a transcode writes, with the codecs each one carries.
    public enum Format: String, Sendable, Codable, CaseIterable {
        case mp4, mov, mkv, webm, ts, m4a, mp3, adts

        /// The libav muxer that writes this format.
        var muxerName: String {
            switch self {
            case .mp4: "mp4"
            case .mov: "mov"
            case .mkv: "matroska"
            case .webm: "webm"
            case .ts: "mpegts"
            case .m4a: "ipod"
            case .mp3: "mp3"
            case .adts: "adts"
            }
        }

        var fileExtension: String { self == .adts ? "aac" : rawValue }

        /// MP4, MOV and M4A: moov first (faststart) or `fragmented`.
        var isISOBaseMedia: Bool { self == .mp4 || self == .mov || self == .m4a }

        /// Whether the format holds audio only.
        var isAudioOnly: Bool { self == .m4a || self == .mp3 || self == .adts }

        /// The video codecs libav 5.1's muxer for this format writes and players read back from it
        /// (HEVC and AV1 are not WebM codecs; QuickTime holds neither AV1 nor VP9; MPEG-TS has no stream
        /// type for VP9 or AV1).
        var videoCodecs: [VideoCodec] {
            switch self {
            case .mp4: [.h264, .hevc, .av1, .vp9]
            case .mov, .ts: [.h264, .hevc]
            case .mkv: [.h264, .hevc, .av1, .vp9]
            case .webm: [.vp9, .av1]
            case .m4a, .mp3, .adts: []
            }
        }

        /// The audio codecs this format carries.
        var audioCodecs: [AudioCodec] {
            switch self {
            case .mp4, .mkv, .ts: [.aac, .opus, .mp3]
            case .mov: [.aac, .mp3]
            case .webm: [.opus]
            case .m4a, .adts: [.aac]
            case .mp3: [.mp3]
            }
        }

        /// The video codec used when `video_codec` is not given: VP9 for WebM, none for audio formats.
        var defaultVideoCodec: VideoCodec {
            switch self {
            case .webm: .vp9
            case .m4a, .mp3, .adts: .none
            default: .h264
            }
        }

        /// The audio codec used when `audio_codec` is not given.
        var defaultAudioCodec: AudioCodec {
            switch self {
            case .webm: .opus
            case .mp3: .mp3
            default: .aac
            }
        }
    }
}
