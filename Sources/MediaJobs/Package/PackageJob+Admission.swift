import CFFmpeg
import MediaCore

extension PackageJob {
    /// The refusals a package makes from its input's tracks, at upload: a stream copy into MPEG-TS
    /// segments of a codec TS does not carry, a ladder from an input with no video to encode, and a
    /// ladder whose estimated memory (`LadderMemory`) is over `memoryLimit`. They mirror what
    /// `PackagePlan` and `LadderPlan` check when the job opens the input, over the same tracks: the first
    /// video track that is not cover art, and every audio track.
    public static func admission(for options: Options, memoryLimit: Int64?) -> (@Sendable (MediaInfo) throws -> Void)? {
        if !options.renditions.isEmpty {
            return { info in
                guard info.tracks.contains(where: isPicture) else {
                    throw MediaError(
                        .invalidOption, "renditions asks for a video ladder, but the input has no video track to encode"
                    )
                }
                if let memoryLimit, let source = info.pictureSize(upright: true) {
                    let renditions = LadderPlan.renditions(options.renditions, sourceHeight: source.height)
                    try LadderPlan.memory(renditions, source: source, preset: options.preset ?? Options.defaultPreset)
                        .check(limit: memoryLimit)
                }
            }
        }
        guard options.segmentFormat == .ts else { return nil }
        return { info in
            let copied = info.tracks.filter(isPicture).prefix(1) + info.tracks.filter { $0.kind == "audio" }
            if let track = copied.first(where: { !transportStreamCodecNames.contains($0.codec) }) {
                throw MediaError(
                    .invalidOption,
                    "segment_format=ts cannot carry \(track.codec) (track \(track.index)); use segment_format=fmp4")
            }
        }
    }

    /// A video track that is a picture sequence, not cover art.
    private static func isPicture(_ track: MediaInfo.Track) -> Bool {
        track.kind == "video" && !(track.disposition ?? []).contains("attached_pic")
    }

    /// libav's names of the codecs `PackagePlan.transportStreamCodecs` lists, as probes report them.
    private static let transportStreamCodecNames = Set(
        PackagePlan.transportStreamCodecs.map { String(cString: avcodec_get_name(AVCodecID(rawValue: $0))) })
}
