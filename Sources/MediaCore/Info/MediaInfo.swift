/// What is inside a media file: the answer of `probe`, `/probe` and demux's `info.json`.
///
/// Optional fields are omitted from JSON when unknown or not applicable (a video track has no
/// sample rate). Encoded with snake_case keys by `MediaJSON`.
public struct MediaInfo: Codable, Sendable, Equatable {
    /// mediad's name for the container (`mp4`, `matroska`, `adts`, …).
    public var container: String
    /// libav's demuxer name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    public var formatName: String
    /// The ISO brand (`isom`, `qt  `, `M4A `, …) for MP4-family files.
    public var majorBrand: String?
    public var duration: Double?
    public var bitRate: Int?
    public var size: Int64
    /// Container-level tags such as `creation_time`, `title`, `encoder`.
    public var tags: [String: String]?
    public var tracks: [Track]
    /// What is cut short or malformed in the file, each starting with its code (`truncated_input: …`,
    /// `invalid_input: …`); absent for a sound file.
    public var warnings: [String]?

    enum CodingKeys: String, CodingKey {
        case container, duration, size, tags, tracks, warnings
        case formatName = "format_name"
        case majorBrand = "major_brand"
        case bitRate = "bit_rate"
    }

    public init(
        container: String, formatName: String, majorBrand: String? = nil, duration: Double? = nil,
        bitRate: Int? = nil, size: Int64, tags: [String: String]? = nil, tracks: [Track]
    ) {
        self.container = container
        self.formatName = formatName
        self.majorBrand = majorBrand
        self.duration = duration
        self.bitRate = bitRate
        self.size = size
        self.tags = tags
        self.tracks = tracks
    }

    /// One stream of the file.
    public struct Track: Codable, Sendable, Equatable {
        public var index: Int
        /// `audio`, `video`, `subtitle`, `data` or `attachment`.
        public var kind: String
        /// libav's codec name (`aac`, `h264`, `hevc`, …).
        public var codec: String
        public var codecTag: String?
        public var profile: String?
        public var bitRate: Int?
        public var duration: Double?
        public var startTime: Double?
        public var language: String?
        /// Packets (frames) in the track when the container states it.
        public var frameCount: Int?
        public var sampleRate: Int?
        public var channels: Int?
        public var channelLayout: String?
        public var width: Int?
        public var height: Int?
        /// Average frame rate as an exact fraction, e.g. `30000/1001`.
        public var frameRate: String?
        public var pixelFormat: String?
        /// Degrees a player turns the picture clockwise (0, 90, 180, 270), from the display matrix.
        public var rotation: Int?
        public var sampleAspectRatio: String?
        /// Cover art, a default track, …
        public var disposition: [String]?
        /// demux only: the file this track was written to.
        public var output: String?
        /// demux only: why this track was not extracted.
        public var skipped: String?
        /// Samples of encoder delay a decoder trims at the start (AAC priming), when the container says.
        public var primingSamples: Int?
        /// probe with `loudness=true` only: the audio track's EBU R128 loudness.
        public var loudness: TrackLoudness?

        enum CodingKeys: String, CodingKey {
            case index, kind, codec, profile, duration, language, channels, width, height, rotation, disposition
            case output, skipped, loudness
            case codecTag = "codec_tag"
            case bitRate = "bit_rate"
            case startTime = "start_time"
            case frameCount = "frame_count"
            case sampleRate = "sample_rate"
            case channelLayout = "channel_layout"
            case frameRate = "frame_rate"
            case pixelFormat = "pixel_format"
            case sampleAspectRatio = "sample_aspect_ratio"
            case primingSamples = "priming_samples"
        }

        public init(index: Int, kind: String, codec: String) {
            self.index = index
            self.kind = kind
            self.codec = codec
        }
    }
}
