import CFFmpeg

/// The raw PCM sample formats users can name (`sample_format`), and what each means to libav.
///
/// One name selects the raw demuxer/muxer (libav names them the same way), the `pcm_*` codec that
/// reads or writes the bytes, and the in-memory sample format that codec works with. Packed 24-bit and
/// big-endian samples have no libswresample equivalent, which is why all raw I/O goes through the
/// `pcm_*` decoders and encoders.
public enum SampleFormat: String, Sendable, Codable, CaseIterable {
    case s16le, s16be, s24le, s32le, f32le, f64le, u8

    /// Bytes one sample of one channel takes in the file.
    public var bytesPerSample: Int {
        switch self {
        case .u8: 1
        case .s16le, .s16be: 2
        case .s24le: 3
        case .s32le, .f32le: 4
        case .f64le: 8
        }
    }

    /// The name of libav's raw demuxer and muxer for this format.
    public var rawFormatName: String { rawValue }

    /// The `pcm_*` codec that reads and writes these bytes.
    public var codecID: AVCodecID {
        switch self {
        case .s16le: AV_CODEC_ID_PCM_S16LE
        case .s16be: AV_CODEC_ID_PCM_S16BE
        case .s24le: AV_CODEC_ID_PCM_S24LE
        case .s32le: AV_CODEC_ID_PCM_S32LE
        case .f32le: AV_CODEC_ID_PCM_F32LE
        case .f64le: AV_CODEC_ID_PCM_F64LE
        case .u8: AV_CODEC_ID_PCM_U8
        }
    }

    /// The packed sample format the `pcm_*` decoder outputs and encoder takes (24-bit travels as 32-bit).
    public var codecSampleFormat: AVSampleFormat {
        switch self {
        case .s16le, .s16be: AV_SAMPLE_FMT_S16
        case .s24le, .s32le: AV_SAMPLE_FMT_S32
        case .f32le: AV_SAMPLE_FMT_FLT
        case .f64le: AV_SAMPLE_FMT_DBL
        case .u8: AV_SAMPLE_FMT_U8
        }
    }

    /// Whether a WAV file can hold these samples (WAV is little-endian).
    public var fitsWAV: Bool { self != .s16be }

    /// The format whose `pcm_*` codec is `codecID`, if it is one of ours.
    public init?(codecID: AVCodecID) {
        guard let match = SampleFormat.allCases.first(where: { $0.codecID == codecID }) else { return nil }
        self = match
    }
}
