import MediaCore

extension PackageJob: SingleFileJob {
    public static let name = "package"
    public typealias Result = PackageResult

    static let inputPolicy = InputPolicy.transcoding
    static let inputSummary = "an MP4-family, Matroska, MPEG-TS, FLV or ASF file"

    /// A ladder decodes the source once and encodes up to seven renditions, whose pictures add up to about
    /// twice the largest: three times a transcode's time (and CPU time), so that a long ladder is never
    /// stopped by a limit sized for a stream copy. A stream copy finishes long before either limit.
    public static let timeScale = 30.0

    /// The HLS master playlist, or the MPD of a DASH-only package.
    public static func primaryOutput(for options: Options) -> String {
        options.format == .dash ? dashManifestName : hlsMasterName
    }

    init(input: String, output: String, options: Options) {
        self.init(input: input, primaryOutput: output, options: options)
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
        OptionDescription(
            "renditions", .choiceList, allowed: LadderRung.allCases.map(\.rawValue),
            help:
                "An ABR ladder encoded in H.264, e.g. 1080p,720p,360p; sizes above the source's are skipped, and a ladder estimated over the job memory limit is refused."
        ),
        .choice(
            "preset", of: TranscodeJob.Preset.self,
            help: "The ladder's x264 speed preset (veryfast); only with renditions."),
        .damaged,
    ]
}

extension JobKind {
    public static let `package` = PackageJob.kind
}
