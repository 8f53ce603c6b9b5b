import CFFmpeg

/// The containers mediad writes, with what each one can and cannot carry.
public enum ContainerFormat: String, Sendable, Codable, CaseIterable {
    case mp4, mov, m4a, mkv, ts, flv, asf

    /// The libav muxer that writes this format.
    public var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .m4a: "ipod"
        case .mkv: "matroska"
        case .ts: "mpegts"
        case .flv: "flv"
        case .asf: "asf"
        }
    }

    public var fileExtension: String { rawValue }

    /// A name for people, used in error messages.
    public var displayName: String {
        switch self {
        case .mp4: "MP4"
        case .mov: "MOV"
        case .m4a: "M4A"
        case .mkv: "Matroska"
        case .ts: "MPEG-TS"
        case .flv: "FLV"
        case .asf: "ASF"
        }
    }

    /// Whether libav's muxer for this format (or `muxer`, a flavour of it) can store `codec`.
    ///
    /// `avformat_query_codec` answers 1 (yes), 0 (no) or an error when the muxer keeps no list (MPEG-TS);
    /// only a clear no counts as no, anything else is left to the muxer's own header check, except where the
    /// table and that check disagree in libav 5.1: its mov muxer shares the table but writes FLAC, Opus,
    /// TrueHD, VP9 and AV1 into MP4 only, and its mp4 muxer writes TrueHD only as an experimental feature,
    /// refused at normal compliance (as the ffmpeg CLI refuses it without `-strict -2`). FLAC in MP4, which
    /// 5.1 still marks experimental, is Xiph's published mapping (`fLaC` with a `dfLa` box) that browsers
    /// play and later FFmpeg releases write by default: mp4 takes it (`OutputFile` lowers the compliance
    /// for it alone).
    public func carries(_ codec: AVCodecID, muxer: String? = nil, compliance: Int32 = FF_COMPLIANCE_NORMAL) -> Bool {
        guard let format = av_guess_format(muxer ?? muxerName, nil, nil) else { return false }
        let mp4Only = [AV_CODEC_ID_FLAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_TRUEHD, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1]
        if self == .mov, mp4Only.contains(codec) { return false }
        // libav's mpegts muxer keeps no codec list and writes anything else as private data, which no
        // reader (libav included) decodes as the codec again.
        if self == .ts { return Self.transportStreamCodecs.contains(codec) }
        // Its flv muxer's table lists raw PCM, which it then writes only at the few rates FLV knows.
        if self == .flv, avcodec_get_type(codec) == AVMEDIA_TYPE_AUDIO {
            return Self.flashAudioCodecs.contains(codec)
        }
        if self == .mp4, codec == AV_CODEC_ID_FLAC { return true }
        if self == .mp4 || self == .m4a, compliance > FF_COMPLIANCE_EXPERIMENTAL, codec == AV_CODEC_ID_TRUEHD {
            return false
        }
        return avformat_query_codec(format, codec, compliance) != 0
    }

    /// Whether this format can hold a track of `codec` at `sampleRate` Hz: the codec (see
    /// `carries(_:muxer:compliance:)`) and the variant the rate implies.
    ///
    /// MP4 and M4A hold AC-3 only as ETSI TS 102 366 defines it (a `dac3` box), at 48, 44.1 or 32 kHz
    /// (`bsid` ≤ 8); libav 5.1's mp4 muxer refuses the half- and quarter-rate variants (`bsid` 9 and 10,
    /// RealAudio's DolbyNet) only as it writes the `moov`, after every packet: at the end of a faststart
    /// file. QuickTime (`mov`) writes no `dac3` and takes them.
    public func carries(_ codec: AVCodecID, sampleRate: Int32) -> Bool {
        if self == .mp4 || self == .m4a, codec == AV_CODEC_ID_AC3, !Self.standardAC3Rates.contains(sampleRate) {
            return false
        }
        return carries(codec)
    }

    /// The sample rates of AC-3 streams with `bsid` 8 or lower.
    private static let standardAC3Rates: Set<Int32> = [48000, 44100, 32000]

    /// The codecs libav 5.1's mpegts muxer gives a stream type of their own.
    private static let transportStreamCodecs = [
        AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4,
        AV_CODEC_ID_VC1, AV_CODEC_ID_CAVS, AV_CODEC_ID_DIRAC, AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM, AV_CODEC_ID_MP2,
        AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_DTS, AV_CODEC_ID_TRUEHD, AV_CODEC_ID_OPUS,
        AV_CODEC_ID_S302M,
    ]

    /// The audio codecs FLV holds at any sample rate libav's flv muxer accepts for them.
    private static let flashAudioCodecs = [
        AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_SPEEX, AV_CODEC_ID_NELLYMOSER, AV_CODEC_ID_ADPCM_SWF,
    ]

    /// The MIME type served for files of this format.
    public var contentType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .m4a: "audio/mp4"
        case .mkv: "video/x-matroska"
        case .ts: "video/mp2t"
        case .flv: "video/x-flv"
        case .asf: "video/x-ms-asf"
        }
    }

    /// MP4, MOV and M4A: the ISO base media family, which takes `faststart` and `fragmented`.
    public var isISOBaseMedia: Bool { self == .mp4 || self == .mov || self == .m4a }

    /// Whether a video display matrix (rotation) survives in this container with libav 5.1.
    public var storesRotation: Bool { isISOBaseMedia }

    /// Whether the container can tell decoders to drop encoder priming (an edit list).
    public var signalsPriming: Bool { isISOBaseMedia }

    /// Whether chapters are stored: `chpl` and a chapter track in the ISO family, Matroska chapters, ASF
    /// markers (libav 5.1's muxers).
    public var storesChapters: Bool { isISOBaseMedia || self == .mkv || self == .asf }

    /// Whether cover art is stored: the `covr` item of MP4/M4A metadata, or a Matroska attachment. libav
    /// 5.1 writes no cover into QuickTime (`mov`), MPEG-TS, FLV or ASF.
    public var storesCoverArt: Bool { self == .mp4 || self == .m4a || self == .mkv }

    /// Whether track languages are stored.
    public var storesLanguage: Bool { self != .flv }

    /// The format named by a file's extension (`.mp4`, `.mkv`, `.m4v` → mp4, `.3gp` → mp4, …), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "mp4", "m4v", "3gp": self = .mp4
        case "mov", "qt": self = .mov
        case "m4a": self = .m4a
        case "mkv", "mka": self = .mkv
        case "ts", "m2ts", "mts": self = .ts
        case "flv": self = .flv
        case "asf", "wmv", "wma": self = .asf
        default: return nil
        }
    }
}
