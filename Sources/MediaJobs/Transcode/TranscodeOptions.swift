import MediaCore

extension TranscodeJob {
    /// Transcode options after defaults; `validate()` refuses the combinations no encoder or container takes.
    public struct Options: Sendable, Codable, Equatable {
        public static let videoBitRates = 16_000...200_000_000
        public static let bufferSizes = 16_000...400_000_000
        public static let audioBitRates = 8_000...512_000
        public static let sampleRates = 8_000...192_000
        public static let channelCounts = 1...8
        public static let dimensions = 16...16384
        public static let gops = 1...1000
        public static let bFrames = 0...16
        /// Integrated loudness targets, LUFS.
        public static let loudnessTargets = -70...(-5)
        /// True-peak ceilings, dBTP.
        public static let truePeaks = -9...0
        /// What `crf` parses before the codec's own range is checked.
        static let anyCRF = 0...63

        public var format: Format
        /// Fragmented MP4 (moof/mdat pairs) instead of faststart; MP4, MOV and M4A only.
        public var fragmented: Bool
        /// Whether a fragmented file gets remux's global `sidx` and `mehd` (nil, the default not stored in
        /// records: yes); `false` writes it front to back, readable while the job runs.
        public var globalSidx: Bool?
        public var videoCodec: VideoCodec
        /// Constant quality; nil with `videoBitrate`, the codec's default without.
        public var crf: Int?
        /// Average video bit rate in bits per second.
        public var videoBitrate: Int?
        /// VBV peak rate in bits per second (x264/x265).
        public var maxBitrate: Int?
        /// VBV buffer in bits (x264/x265); twice `maxBitrate` when only that is given.
        public var bufferSize: Int?
        public var preset: Preset?
        public var profile: VideoProfile?
        public var level: String?
        /// A keyframe exactly every `gop` frames, and nowhere else.
        public var gop: Int?
        public var bframes: Int?
        /// A constant output frame rate; the input's timing is kept without it.
        public var fps: FrameRate?
        public var width: Int?
        public var height: Int?
        public var pixelFormat: PixelFormat?
        public var rotate: Rotation
        /// The audio codec; nil means the format's default, and then an input without audio simply gives
        /// an output without audio (a named codec makes a missing audio track an error).
        public var audioCodec: AudioCodec?
        public var audioBitrate: Int?
        public var sampleRate: Int?
        public var channels: Int?
        /// Seconds from the input's start; frame- and sample-exact.
        public var start: Double?
        public var end: Double?
        public var measure: QualityMeasure
        /// EBU R128 integrated loudness to normalise the audio to, in LUFS (two passes: measure, then a
        /// linear gain).
        public var loudness: Int?
        /// The true-peak ceiling of the normalised audio, in dBTP; -1 when `loudness` is given without it.
        public var truePeak: Int?

        public init(
            format: Format = .mp4, fragmented: Bool = false, globalSidx: Bool? = nil, videoCodec: VideoCodec? = nil,
            crf: Int? = nil, videoBitrate: Int? = nil, maxBitrate: Int? = nil, bufferSize: Int? = nil,
            preset: Preset? = nil,
            profile: VideoProfile? = nil, level: String? = nil, gop: Int? = nil, bframes: Int? = nil,
            fps: FrameRate? = nil, width: Int? = nil, height: Int? = nil, pixelFormat: PixelFormat? = nil,
            rotate: Rotation = .auto, audioCodec: AudioCodec? = nil, audioBitrate: Int? = nil, sampleRate: Int? = nil,
            channels: Int? = nil, start: Double? = nil, end: Double? = nil, measure: QualityMeasure = .none,
            loudness: Int? = nil, truePeak: Int? = nil
        ) throws {
            self.format = format
            self.fragmented = fragmented
            self.globalSidx = globalSidx
            self.videoCodec = videoCodec ?? format.defaultVideoCodec
            self.crf = crf
            self.videoBitrate = videoBitrate
            self.maxBitrate = maxBitrate
            self.bufferSize = bufferSize ?? maxBitrate.map { $0 * 2 }
            self.preset = preset
            self.profile = profile
            self.level = level
            self.gop = gop
            self.bframes = bframes
            self.fps = fps
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.rotate = rotate
            self.audioCodec = audioCodec
            self.audioBitrate = audioBitrate
            self.sampleRate = sampleRate
            self.channels = channels
            self.start = start
            self.end = end
            self.measure = measure
            self.loudness = loudness
            self.truePeak = truePeak ?? loudness.map { _ in -1 }
            if truePeak != nil && loudness == nil {
                throw MediaError(
                    .invalidOption, "true_peak is the ceiling of loudness normalisation: give loudness too")
            }
            if bufferSize != nil && maxBitrate == nil {
                throw MediaError(.invalidOption, "buffer_size sizes the VBV of max_bitrate: give max_bitrate too")
            }
            try validate()
        }

        /// Parses string options as the CLI and HTTP API receive them.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            let format = try reader.choice("format", as: Format.self) ?? .mp4
            let fragmented = try reader.boolean("fragmented") ?? false
            let globalSidx = try reader.boolean("global_sidx")
            let videoCodec = try reader.choice("video_codec", as: VideoCodec.self)
            let crf = try reader.integer("crf", in: Self.anyCRF)
            let videoBitrate = try reader.bitRate("video_bitrate", in: Self.videoBitRates)
            let maxBitrate = try reader.bitRate("max_bitrate", in: Self.videoBitRates)
            let bufferSize = try reader.bitRate("buffer_size", in: Self.bufferSizes)
            let preset = try reader.choice("preset", as: Preset.self)
            let profile = try reader.choice("profile", as: VideoProfile.self)
            let level = reader.string("level")
            let gop = try reader.integer("gop", in: Self.gops)
            let bframes = try reader.integer("bframes", in: Self.bFrames)
            let fps = try reader.frameRate("fps")
            let width = try reader.integer("width", in: Self.dimensions)
            let height = try reader.integer("height", in: Self.dimensions)
            let pixelFormat = try reader.choice("pixel_format", as: PixelFormat.self)
            let rotate = try reader.choice("rotate", as: Rotation.self) ?? .auto
            let audioCodec = try reader.choice("audio_codec", as: AudioCodec.self)
            let audioBitrate = try reader.bitRate("audio_bitrate", in: Self.audioBitRates)
            let sampleRate = try reader.integer("sample_rate", in: Self.sampleRates)
            let channels = try reader.integer("channels", in: Self.channelCounts)
            let start = try reader.seconds("start")
            let end = try reader.seconds("end")
            let measure = try reader.choice("measure", as: QualityMeasure.self) ?? .none
            let loudness = try reader.integer("loudness", in: Self.loudnessTargets)
            let truePeak = try reader.integer("true_peak", in: Self.truePeaks)
            try reader.finish()
            try self.init(
                format: format, fragmented: fragmented, globalSidx: globalSidx, videoCodec: videoCodec, crf: crf,
                videoBitrate: videoBitrate, maxBitrate: maxBitrate, bufferSize: bufferSize, preset: preset,
                profile: profile, level: level,
                gop: gop, bframes: bframes, fps: fps, width: width, height: height, pixelFormat: pixelFormat,
                rotate: rotate, audioCodec: audioCodec, audioBitrate: audioBitrate, sampleRate: sampleRate,
                channels: channels, start: start, end: end, measure: measure, loudness: loudness, truePeak: truePeak)
        }

        /// Decodes stored options through the same defaults and checks as `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            try self.init(
                format: values.decodeIfPresent(Format.self, forKey: .format) ?? .mp4,
                fragmented: values.decodeIfPresent(Bool.self, forKey: .fragmented) ?? false,
                globalSidx: values.decodeIfPresent(Bool.self, forKey: .globalSidx),
                videoCodec: values.decodeIfPresent(VideoCodec.self, forKey: .videoCodec),
                crf: values.decodeIfPresent(Int.self, forKey: .crf),
                videoBitrate: values.decodeIfPresent(Int.self, forKey: .videoBitrate),
                maxBitrate: values.decodeIfPresent(Int.self, forKey: .maxBitrate),
                bufferSize: values.decodeIfPresent(Int.self, forKey: .bufferSize),
                preset: values.decodeIfPresent(Preset.self, forKey: .preset),
                profile: values.decodeIfPresent(VideoProfile.self, forKey: .profile),
                level: values.decodeIfPresent(String.self, forKey: .level),
                gop: values.decodeIfPresent(Int.self, forKey: .gop),
                bframes: values.decodeIfPresent(Int.self, forKey: .bframes),
                fps: values.decodeIfPresent(FrameRate.self, forKey: .fps),
                width: values.decodeIfPresent(Int.self, forKey: .width),
                height: values.decodeIfPresent(Int.self, forKey: .height),
                pixelFormat: values.decodeIfPresent(PixelFormat.self, forKey: .pixelFormat),
                rotate: values.decodeIfPresent(Rotation.self, forKey: .rotate) ?? .auto,
                audioCodec: values.decodeIfPresent(AudioCodec.self, forKey: .audioCodec),
                audioBitrate: values.decodeIfPresent(Int.self, forKey: .audioBitrate),
                sampleRate: values.decodeIfPresent(Int.self, forKey: .sampleRate),
                channels: values.decodeIfPresent(Int.self, forKey: .channels),
                start: values.decodeIfPresent(Double.self, forKey: .start),
                end: values.decodeIfPresent(Double.self, forKey: .end),
                measure: values.decodeIfPresent(QualityMeasure.self, forKey: .measure) ?? .none,
                loudness: values.decodeIfPresent(Int.self, forKey: .loudness),
                truePeak: values.decodeIfPresent(Int.self, forKey: .truePeak))
        }

        /// The audio codec after the format's default.
        var resolvedAudioCodec: AudioCodec { audioCodec ?? format.defaultAudioCodec }

        /// The rate control: `crf` when given or when no bit rate is, else the bit rate.
        var effectiveCRF: Int? { videoBitrate == nil ? crf ?? videoCodec.defaultCRF : nil }

        /// The pixel format the encoder gets: the one asked for, 10-bit for HEVC main10, else yuv420p.
        var effectivePixelFormat: PixelFormat { pixelFormat ?? (profile == .main10 ? .yuv420p10le : .yuv420p) }

        enum CodingKeys: String, CodingKey {
            case format, fragmented
            case globalSidx = "global_sidx"
            case videoCodec = "video_codec"
            case crf
            case videoBitrate = "video_bitrate"
            case maxBitrate = "max_bitrate"
            case bufferSize = "buffer_size"
            case preset, profile, level, gop, bframes, fps, width, height
            case pixelFormat = "pixel_format"
            case rotate
            case audioCodec = "audio_codec"
            case audioBitrate = "audio_bitrate"
            case sampleRate = "sample_rate"
            case channels, start, end, measure, loudness
            case truePeak = "true_peak"
        }
    }
}
