import MediaCore

extension EncodeJob: MediaJob {
    public static let name = "encode"

    public static let inputs = [
        JobInputPart("file", accepting: [.wav], orUnrecognized: true, policy: .pcmDecoding, summary: "raw PCM or WAV")
    ]

    public static func primaryOutput(for options: Options) -> String {
        "output." + (options.format == .adts ? "aac" : options.format.rawValue)
    }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> EncodeResult {
        try EncodeJob(input: inputs.path(of: "file"), output: output, options: options).run(context)
    }
}

extension EncodeJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        OptionDescription(
            "sample_rate", .integer,
            help: "Sample rate of raw PCM input in Hz, 8000 to 192000 (default 44100; a WAV states its own)."),
        OptionDescription(
            "channels", .integer, help: "Channels of raw PCM input, 1 to 8 (default 2; a WAV states its own)."),
        .choice(
            "sample_format", of: SampleFormat.self,
            help: "Sample format of raw PCM input (default s16le; a WAV states its own)."),
        OptionDescription(
            "bitrate", .bitRate, default: "96000", help: "AAC bit rate, 8k to 512k bits per second, e.g. 128k."),
        .choice("format", of: Format.self, default: .m4a, help: "The output: M4A, MP4, ADTS AAC, or WAV."),
    ]
}

extension JobKind {
    public static let encode = EncodeJob.kind
}
