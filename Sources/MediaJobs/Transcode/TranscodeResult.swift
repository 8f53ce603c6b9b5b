import MediaCore

/// What a transcode wrote: the container and, per track, what it holds and how the encode went.
public struct TranscodeResult: JobResult, Equatable {
    /// One track of the output.
    public struct Track: Codable, Sendable, Equatable {
        /// `video` or `audio`.
        public var kind: String
        /// libav's codec name, e.g. `h264`.
        public var codec: String
        /// The profile libav names for the output, e.g. `High`, `Main 10`, `LC`; nil when it names none.
        public var profile: String?
        /// Whether the track was copied from the input rather than encoded.
        public var copied: Bool
        /// Packets written: video frames, or audio frames of the codec.
        public var frames: Int
        /// Seconds from the first to the end of the last packet.
        public var duration: Double
        /// The bit rate achieved: the track's bytes over its duration, in bits per second.
        public var bitrate: Int
        /// Video width and height in pixels.
        public var width: Int?
        public var height: Int?
        /// Video frames per second when the output rate is constant (`fps`), else the input's average.
        public var frameRate: String?
        /// Audio sample rate in Hz and channels.
        public var sampleRate: Int?
        public var channels: Int?

        enum CodingKeys: String, CodingKey {
            case kind, codec, profile, copied, frames, duration, bitrate, width, height
            case frameRate = "frame_rate"
            case sampleRate = "sample_rate"
            case channels
        }
    }

    /// A quality score of the output's video against the source's frames.
    public struct Quality: Codable, Sendable, Equatable {
        /// `ssim` (0…1, 1 is identical) or `psnr` (decibels).
        public var metric: String
        /// The mean over all frames: SSIM's `All`, or PSNR's average of the three planes.
        public var score: Double
        /// Frames compared.
        public var frames: Int
    }

    /// What `loudness` did: the input and output measured by EBU R128, and the gain applied between.
    public struct Loudness: Codable, Sendable, Equatable {
        /// Integrated loudness (LUFS), loudness range (LU) and the highest true peak (dBTP).
        public struct Measurement: Codable, Sendable, Equatable {
            public var integrated: Double
            public var range: Double
            public var truePeak: Double

            enum CodingKeys: String, CodingKey {
                case integrated, range
                case truePeak = "true_peak"
            }
        }

        /// The integrated loudness asked for, in LUFS.
        public var target: Double
        /// The gain applied, in dB: the target less the input's loudness, lowered when the input's true
        /// peak would otherwise pass the `true_peak` ceiling.
        public var gain: Double
        public var input: Measurement
        /// The output measured again; nil for MP3, which mediad does not read back.
        public var output: Measurement?
    }

    public var outputs: [String]
    public var warnings: [String]
    /// The libav muxer that wrote the file, e.g. `mp4`.
    public var muxer: String
    public var tracks: [Track]
    /// Output media seconds per second of wall-clock time spent encoding.
    public var speed: Double
    /// Present when `measure` asked for it.
    public var quality: Quality?
    /// Present when `loudness` asked for normalisation.
    public var loudness: Loudness?

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, muxer, tracks, speed, quality, loudness
    }
}
