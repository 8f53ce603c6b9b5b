import MediaCore

extension DecodeJob: MediaJob {
    public static let name = "decode"

    public static let inputs = [
        JobInputPart(
            "file", accepting: acceptedInputs, policy: .aacDecoding, summary: "ADTS AAC, M4A or MP4")
    ]

    public static func primaryOutput(for options: Options) -> String { "output." + options.format.rawValue }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> DecodeResult {
        try DecodeJob(input: inputs.path(of: "file"), output: output, options: options).run(context)
    }
}

extension DecodeJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice("format", of: Format.self, default: .wav, help: "wav: PCM with a RIFF/WAVE header; pcm: raw samples."),
        .choice(
            "sample_format", of: SampleFormat.self, default: .s16le,
            help: "The output's sample format; WAV takes the little-endian ones."),
    ]
}

extension JobKind {
    public static let decode = DecodeJob.kind
}
