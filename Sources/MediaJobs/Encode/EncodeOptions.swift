import MediaCore

extension EncodeJob {
    /// What to encode to, how to read raw PCM, and — when `pixelFormat` is given — how to read and encode
    /// raw camera frames.
    public struct Options: Sendable, Codable, Equatable {
        public static let sampleRates = 8000...192_000
        public static let channelCounts = 1...8
        public static let bitrates = 8000...512_000

        /// Raw PCM sample rate in Hz (default 44100); a WAV states its own.
        public var sampleRate: Int?
        /// Raw PCM channel count (default 2); a WAV states its own.
        public var channels: Int?
        /// Raw PCM sample format (default s16le); a WAV states its own.
        public var sampleFormat: SampleFormat?
        /// AAC bit rate in bits per second.
        public var bitrate: Int
        /// The output; m4a for PCM alone, mp4 for camera frames when not given.
        public var format: Format
        /// The layout of raw camera frames. Giving it makes the job a video encode: a lone input is then
        /// frames, not PCM.
        public var pixelFormat: PixelFormat?
        /// The frames' width and height in pixels, and their rate; required with `pixelFormat`.
        public var width: Int?
        public var height: Int?
        public var fps: FrameRate?
        /// The video codec after the format's default; nil for PCM alone.
        public var videoCodec: VideoCodec?
        /// Transcode's video rate control and structure options, with its meanings and checks.
        public var crf: Int?
        public var videoBitrate: Int?
        public var maxBitrate: Int?
        public var bufferSize: Int?
        public var preset: TranscodeJob.Preset?
        public var profile: TranscodeJob.VideoProfile?
        public var level: String?
        public var gop: Int?
        public var bframes: Int?

        public init(
            sampleRate: Int? = nil, channels: Int? = nil, sampleFormat: SampleFormat? = nil, bitrate: Int = 96000,
            format: Format = .m4a
        ) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.sampleFormat = sampleFormat
            self.bitrate = bitrate
            self.format = format
        }

        /// Decodes stored options with the defaults and checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            sampleRate = try values.decodeIfPresent(Int.self, forKey: .sampleRate)
            channels = try values.decodeIfPresent(Int.self, forKey: .channels)
            sampleFormat = try values.decodeIfPresent(SampleFormat.self, forKey: .sampleFormat)
            bitrate = try values.decodeIfPresent(Int.self, forKey: .bitrate) ?? 96000
            pixelFormat = try values.decodeIfPresent(PixelFormat.self, forKey: .pixelFormat)
            format = try values.decodeIfPresent(Format.self, forKey: .format) ?? (pixelFormat == nil ? .m4a : .mp4)
            width = try values.decodeIfPresent(Int.self, forKey: .width)
            height = try values.decodeIfPresent(Int.self, forKey: .height)
            fps = try values.decodeIfPresent(FrameRate.self, forKey: .fps)
            videoCodec = try values.decodeIfPresent(VideoCodec.self, forKey: .videoCodec)
            crf = try values.decodeIfPresent(Int.self, forKey: .crf)
            videoBitrate = try values.decodeIfPresent(Int.self, forKey: .videoBitrate)
            maxBitrate = try values.decodeIfPresent(Int.self, forKey: .maxBitrate)
            bufferSize = try values.decodeIfPresent(Int.self, forKey: .bufferSize)
            preset = try values.decodeIfPresent(TranscodeJob.Preset.self, forKey: .preset)
            profile = try values.decodeIfPresent(TranscodeJob.VideoProfile.self, forKey: .profile)
            level = try values.decodeIfPresent(String.self, forKey: .level)
            gop = try values.decodeIfPresent(Int.self, forKey: .gop)
            bframes = try values.decodeIfPresent(Int.self, forKey: .bframes)
            try validate()
        }

        /// Reads the PCM options (`sample_rate`, `channels`, `sample_format`, `bitrate`), `format`, and the
        /// camera frames' `pixel_format`, `width`, `height`, `fps` with transcode's video options.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            sampleRate = try reader.integer("sample_rate", in: Options.sampleRates)
            channels = try reader.integer("channels", in: Options.channelCounts)
            sampleFormat = try reader.choice("sample_format", as: SampleFormat.self)
            bitrate = try reader.bitRate("bitrate", in: Options.bitrates) ?? 96000
            pixelFormat = try reader.choice("pixel_format", as: PixelFormat.self)
            format = try reader.choice("format", as: Format.self) ?? (pixelFormat == nil ? .m4a : .mp4)
            width = try reader.integer("width", in: TranscodeJob.Options.dimensions)
            height = try reader.integer("height", in: TranscodeJob.Options.dimensions)
            fps = try reader.frameRate("fps")
            videoCodec = try reader.choice("video_codec", as: VideoCodec.self)
            crf = try reader.integer("crf", in: TranscodeJob.Options.anyCRF)
            videoBitrate = try reader.bitRate("video_bitrate", in: TranscodeJob.Options.videoBitRates)
            maxBitrate = try reader.bitRate("max_bitrate", in: TranscodeJob.Options.videoBitRates)
            bufferSize = try reader.bitRate("buffer_size", in: TranscodeJob.Options.bufferSizes)
            preset = try reader.choice("preset", as: TranscodeJob.Preset.self)
            profile = try reader.choice("profile", as: TranscodeJob.VideoProfile.self)
            level = reader.string("level")
            gop = try reader.integer("gop", in: TranscodeJob.Options.gops)
            bframes = try reader.integer("bframes", in: TranscodeJob.Options.bFrames)
            try reader.finish()
            if pixelFormat != nil, videoCodec == nil { videoCodec = format.defaultVideoCodec }
            try validate()
        }

        /// Throws `invalid_option` for values outside their ranges and for options that contradict each
        /// other, so a request is refused before any work.
        public func validate() throws {
            if let sampleRate, !Options.sampleRates.contains(sampleRate) {
                throw MediaError(.invalidOption, "sample_rate \(sampleRate) is outside \(Options.sampleRates)")
            }
            if let channels, !Options.channelCounts.contains(channels) {
                throw MediaError(.invalidOption, "channels \(channels) is outside \(Options.channelCounts)")
            }
            if !Options.bitrates.contains(bitrate) {
                throw MediaError(.invalidOption, "bitrate \(bitrate) is outside \(Options.bitrates)")
            }
            try validateVideo()
        }

        enum CodingKeys: String, CodingKey {
            case sampleRate = "sample_rate"
            case channels
            case sampleFormat = "sample_format"
            case bitrate, format
            case pixelFormat = "pixel_format"
            case width, height, fps
            case videoCodec = "video_codec"
            case crf
            case videoBitrate = "video_bitrate"
            case maxBitrate = "max_bitrate"
            case bufferSize = "buffer_size"
            case preset, profile, level, gop, bframes
        }
    }
}
