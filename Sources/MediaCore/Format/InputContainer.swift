/// The input formats mediad knows, each opened by exactly one libav demuxer.
///
/// Inputs are classified by their first bytes (`InputSniffer`) and then opened with that demuxer
/// forced, so libav never guesses a format — and never reaches demuxers such as HLS or concat that
/// would open other files.
public enum InputContainer: String, Sendable, Codable, CaseIterable {
    /// ISO base media: MP4, MOV, M4A, 3GP (moov-first, moov-last and fragmented).
    case mp4
    case matroska
    case mpegts
    case flv
    case asf
    /// Raw AAC in ADTS frames, optionally behind an ID3v2 tag.
    case adts
    /// Raw H.264 Annex-B byte stream.
    case h264
    /// Raw H.265 Annex-B byte stream.
    case hevc
    /// Raw MPEG-4 Part 2 video (an elementary stream of visual objects, often named `.m4v`), timed by the
    /// frame rate its video object layer states.
    case mpeg4Video = "m4v"
    /// RIFF/WAVE PCM.
    case wav

    /// The libav demuxer that reads this format.
    public var demuxerName: String {
        switch self {
        case .mp4: "mov"
        case .matroska: "matroska"
        case .mpegts: "mpegts"
        case .flv: "flv"
        case .asf: "asf"
        case .adts: "aac"
        case .h264: "h264"
        case .hevc: "hevc"
        case .mpeg4Video: "m4v"
        case .wav: "wav"
        }
    }

    /// A name for people, used in error messages.
    public var displayName: String {
        switch self {
        case .mp4: "MP4/MOV"
        case .matroska: "Matroska"
        case .mpegts: "MPEG-TS"
        case .flv: "FLV"
        case .asf: "ASF"
        case .adts: "ADTS AAC"
        case .h264: "H.264 Annex-B"
        case .hevc: "H.265 Annex-B"
        case .mpeg4Video: "raw MPEG-4 video"
        case .wav: "WAV"
        }
    }

    /// Elementary streams with no container timing: mediad times them itself.
    public var isElementaryStream: Bool { self == .adts || self == .h264 || self == .hevc }
}
