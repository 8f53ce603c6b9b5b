import CFFmpeg
import MediaCore

extension MuxJob.Options.Format {
    /// The libav muxer that writes this format.
    public var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .m4a: "ipod"
        case .mov: "mov"
        case .mkv: "matroska"
        case .asf: "asf"
        case .flv: "flv"
        case .ts: "mpegts"
        }
    }

    /// Muxer options: the ISO formats put the index (moov) before the media data so playback can start
    /// while downloading.
    var muxerOptions: [String: String] {
        switch self {
        case .mp4, .m4a, .mov: ["movflags": "+faststart"]
        case .mkv, .asf, .flv, .ts: [:]
        }
    }

    /// A name for people, used in error messages.
    var displayName: String {
        switch self {
        case .mp4: "MP4"
        case .m4a: "M4A"
        case .mov: "MOV"
        case .mkv: "Matroska"
        case .asf: "ASF"
        case .flv: "FLV"
        case .ts: "MPEG-TS"
        }
    }

    /// Throws `unsupported_codec` when libav says this format cannot store `codec`.
    ///
    /// `avformat_query_codec` answers 1 (yes), 0 (no) or an error when the muxer keeps no list; only a
    /// clear no is refused here, anything else is left to the muxer's own header check.
    func checkCarries(_ codec: AVCodecID) throws {
        guard let muxer = av_guess_format(muxerName, nil, nil) else {
            throw MediaError(.internalError, "libav has no muxer '\(muxerName)'")
        }
        if avformat_query_codec(muxer, codec, FF_COMPLIANCE_NORMAL) == 0 {
            let name = String(cString: avcodec_get_name(codec))
            throw MediaError(.unsupportedCodec, "\(displayName) output cannot carry \(name) streams")
        }
    }
}
