import MediaCore

extension DecodeJob: SingleFileJob {
    public static let name = "decode"
    public typealias Result = DecodeResult

    static let inputPolicy = InputPolicy.decoding
    static let inputSummary = "AAC (ADTS, M4A, MP4) or H.264/H.265 (Annex-B, MP4, Matroska, MPEG-TS)"

    /// `output.<format>`; without a format, `output.wav`, which a video-only input turns into `output.y4m`.
    public static func primaryOutput(for options: Options) -> String {
        "output." + (options.format ?? .wav).rawValue
    }
}

extension DecodeJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice(
            "format", of: Format.self,
            help:
                "wav or pcm: the AAC track's samples; y4m, yuv (planar, the decoder's pixel format) or nv12: the "
                + "H.264/H.265 track's frames. Default: wav for an input with audio, y4m for video only."),
        .choice(
            "sample_format", of: SampleFormat.self, default: .s16le,
            help: "The output's sample format (audio only); WAV takes the little-endian ones."),
        .damaged,
    ]
}

extension JobKind {
    public static let decode = DecodeJob.kind
}
