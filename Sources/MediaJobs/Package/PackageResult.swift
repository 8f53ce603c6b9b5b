/// What a package wrote: its manifests, and each rendition with its segments' real durations.
public struct PackageResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// `hls`, `dash` or `cmaf`.
    public var format: String
    /// `fmp4` or `ts`.
    public var segmentFormat: String
    /// The target segment length asked for, in seconds.
    public var segmentDuration: Double
    /// The manifests written: the HLS master playlist and/or the DASH MPD.
    public var manifests: [String]
    public var renditions: [Rendition]

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, format, manifests, renditions
        case segmentFormat = "segment_format"
        case segmentDuration = "segment_duration"
    }

    /// One rendition of the package: a track copied as it is, or one of a ladder's encodes (whose
    /// `input_index` is the source track it was encoded from).
    public struct Rendition: Codable, Sendable, Equatable {
        /// Its folder, `720p` or `audio`.
        public var name: String
        /// `video` or `audio`.
        public var kind: String
        public var inputIndex: Int
        public var codec: String
        /// The RFC 6381 string the manifests state, e.g. `avc1.64001f`.
        public var codecs: String
        /// Peak and average bits per second over its segments.
        public var bandwidth: Int
        public var averageBandwidth: Int
        public var width: Int?
        public var height: Int?
        public var frameRate: Double?
        public var language: String?
        public var channels: Int?
        public var sampleRate: Int?
        /// Its HLS media playlist, when the package has HLS.
        public var playlist: String?
        /// Its fMP4 initialization segment.
        public var initialization: String?
        /// Each segment's real length in seconds, in order.
        public var segmentDurations: [Double]

        enum CodingKeys: String, CodingKey {
            case name, kind, codec, codecs, bandwidth, width, height, language, channels, playlist, initialization
            case inputIndex = "input_index"
            case averageBandwidth = "average_bandwidth"
            case frameRate = "frame_rate"
            case sampleRate = "sample_rate"
            case segmentDurations = "segment_durations"
        }
    }
}
