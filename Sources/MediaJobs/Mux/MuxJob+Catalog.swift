import MediaCore

extension MuxJob: MediaJob {
    public static let name = "mux"

    public static let inputs = [
        JobInputPart("audio", accepting: acceptedAudio, policy: .elementaryStreams, summary: "ADTS AAC"),
        JobInputPart("video", accepting: acceptedVideo, policy: .elementaryStreams, summary: "H.264/H.265 Annex-B"),
    ]

    public static func primaryOutput(for options: Options) -> String { "output." + options.format.fileExtension }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> MuxResult {
        try MuxJob(audio: inputs["audio"], video: inputs["video"], output: output, options: options)
            .run(context)
    }
}

extension MuxJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice("format", of: ContainerFormat.self, default: .mp4, help: "The container to write."),
        OptionDescription(
            "fps", .frameRate, default: "25", help: "Video frames per second: 25, 29.97 or 30000/1001."),
    ]
}

extension JobKind {
    public static let mux = MuxJob.kind
}
