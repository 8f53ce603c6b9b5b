/// The video encoder's options that transcode and encode (camera frames) both take and that mean the same in
/// both, described once so that the two kinds' catalogs, and with them `--help`, the API and the console, say
/// the same. `video_codec`, `crf` and `preset` stay each kind's own: transcode also codes av1 and vp9.
extension OptionDescription {
    static let videoBitrate = OptionDescription(
        "video_bitrate", .bitRate, help: "Average video bit rate instead of crf, 16k to 200M, e.g. 2M.")

    static let maxBitrate = OptionDescription(
        "max_bitrate", .bitRate, help: "VBV peak bit rate for h264/hevc, at least video_bitrate.")

    static let bufferSize = OptionDescription(
        "buffer_size", .bitRate, help: "VBV buffer in bits for h264/hevc (default twice max_bitrate).")

    static let videoProfile = choice(
        "profile", of: TranscodeJob.VideoProfile.self,
        help: "baseline (no B-frames), main or high for h264; main or main10 for hevc.")

    static let videoLevel = OptionDescription(
        "level", .choice, allowed: TranscodeJob.VideoCodec.h264.levels, help: "The h264 or hevc level, e.g. 4.1.")

    static let gop = OptionDescription(
        "gop", .integer,
        help: "A keyframe exactly every this many frames (\(range(TranscodeJob.Options.gops))), "
            + "with no scene-cut keyframes.")

    static let bframes = OptionDescription(
        "bframes", .integer, help: "Most consecutive B-frames for h264/hevc, \(range(TranscodeJob.Options.bFrames)).")

    /// A range as help texts write it: `1-1000`.
    private static func range(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)-\(range.upperBound)" }
}
