/// What a repair wrote and how much of the broken recording it recovered.
public struct RepairResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// The container written, as the `format` option names it.
    public var format: String
    /// How the file was rebuilt: `index` (the media data walked with the reference's codec configuration),
    /// `fragments` (the complete fragments of a fragmented file kept) or `intact` (the input was whole and
    /// was remuxed as it is).
    public var method: String
    public var tracks: [Track]
    /// The length of the longest track written, in seconds.
    public var durationSeconds: Double
    /// Bytes of media data looked at: every `mdat` for `index`, the whole file otherwise.
    public var mediaDataBytes: Int64
    /// Bytes of it that went into the output.
    public var recoveredBytes: Int64
    /// Bytes of it that went nowhere: damage, another track's samples, a sample cut off by the end.
    public var skippedBytes: Int64
    /// Where the skipped bytes are (the first `maxSkippedRanges` ranges), offsets in the input file.
    public var skipped: [SkippedRange]
    /// Complete fragments kept (`fragments` only).
    public var fragmentsKept: Int?
    /// Fragments cut off by the end of the file and dropped (`fragments` only).
    public var fragmentsDropped: Int?

    /// The most skipped ranges listed.
    public static let maxSkippedRanges = 20

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, format, method, tracks, skipped
        case durationSeconds = "duration_seconds"
        case mediaDataBytes = "media_data_bytes"
        case recoveredBytes = "recovered_bytes"
        case skippedBytes = "skipped_bytes"
        case fragmentsKept = "fragments_kept"
        case fragmentsDropped = "fragments_dropped"
    }

    /// One track of the output.
    public struct Track: Codable, Sendable, Equatable {
        /// `video` or `audio`.
        public var kind: String
        /// libav's name of the codec: `h264`, `hevc`, `aac`, `pcm_s16le`, …
        public var codec: String
        /// Samples written: pictures, AAC frames, PCM packets.
        public var samples: Int
        public var seconds: Double
        public var bytes: Int64
    }

    /// A run of skipped bytes.
    public struct SkippedRange: Codable, Sendable, Equatable {
        public var offset: Int64
        public var bytes: Int64
    }
}
