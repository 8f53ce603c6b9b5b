/// What a mux job wrote: the output file and the facts a caller would otherwise have to probe for.
public struct MuxResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// The container written, as the `format` option names it.
    public var format: String
    /// `h264` or `hevc`, or nil without video.
    public var videoCodec: String?
    /// Pictures written (one packet each).
    public var videoFrames: Int
    /// AAC frames written (1024 samples each).
    public var audioFrames: Int
    /// The length of the longest track, in seconds.
    public var durationSeconds: Double

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, format
        case videoCodec = "video_codec"
        case videoFrames = "video_frames"
        case audioFrames = "audio_frames"
        case durationSeconds = "duration_seconds"
    }
}
