import MediaCore

extension PackageJob: MediaJob {
    public static let name = "package"

    public static let inputs = [
        JobInputPart(
            "file", accepting: acceptedInputs, policy: .streamCopy,
            summary: "an MP4-family, Matroska, MPEG-TS, FLV or ASF file")
    ]

    /// The HLS master playlist, or the MPD of a DASH-only package.
    public static func primaryOutput(for options: Options) -> String {
        options.format == .dash ? dashManifestName : hlsMasterName
    }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> PackageResult {
        try PackageJob(input: inputs.path(of: "file"), primaryOutput: output, options: options).run(context)
    }
}

extension PackageJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice(
            "format", of: PackageJob.ManifestFormat.self, default: .hls,
            help: "The manifests: HLS, DASH, or both over one set of fMP4 segments (cmaf)."),
        .choice(
            "segment_format", of: PackageJob.SegmentFormat.self, default: .fmp4,
            help: "The media segments: fragmented MP4, or MPEG-TS (HLS only)."),
        OptionDescription(
            "segment_duration", .seconds, default: "6",
            help: "Target segment length, 1 to 60 seconds; segments end at the first keyframe past it."),
    ]
}

extension JobKind {
    public static let `package` = PackageJob.kind
}
