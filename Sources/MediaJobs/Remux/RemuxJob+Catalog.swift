import MediaCore

extension RemuxJob: SingleFileJob {
    public static let name = "remux"
    public typealias Result = RemuxResult

    static let inputPolicy = InputPolicy.streamCopy
    static let inputSummary =
        "an MP4-family, Matroska, MPEG-TS, FLV or ASF file, or raw AAC, H.264, H.265 or MPEG-4 video"

    public static func primaryOutput(for options: Options) -> String { "output." + options.format.fileExtension }
}

extension RemuxJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice("format", of: ContainerFormat.self, default: .mp4, help: "The container to write."),
        OptionDescription(
            "faststart", .boolean,
            help: "Put the moov box before the media data (mp4, mov and m4a; on by default for them)."),
        .fragmented, .globalSidx,
        .choice("tracks", of: RemuxJob.TrackSelection.self, default: .all, help: "Which kinds of track to keep."),
        OptionDescription("start", .seconds, help: "Start at the last keyframe at or before this many seconds."),
        OptionDescription("end", .seconds, help: "End at the first keyframe at or after this many seconds."),
        OptionDescription(
            "fps", .frameRate, help: "Frame rate of raw H.264/H.265 input, which has no timestamps (default 25)."),
        .damaged,
    ]
}

extension JobKind {
    public static let remux = RemuxJob.kind
}
