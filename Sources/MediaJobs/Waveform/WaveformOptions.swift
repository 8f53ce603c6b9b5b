import MediaCore

extension WaveformJob {
    /// The resolution and sample size of the peaks, and the picture's size and colours.
    public struct Options: Sendable, Codable, Equatable {
        /// Input samples per min/max pair; nil when `pixelsPerSecond` says it, or for the default (256).
        public var samplesPerPixel: Int?
        /// Pairs per second of audio (the rate divided by it gives `samplesPerPixel`); nil when not given.
        public var pixelsPerSecond: Int?
        /// 8 or 16: the range of the values in `data`, as audiowaveform's `--bits`.
        public var bits: Int
        /// One waveform per channel (interleaved in `data`) instead of the channels averaged into one.
        public var splitChannels: Bool
        public var width: Int
        public var height: Int
        public var backgroundColor: RGBAColor
        public var waveformColor: RGBAColor
        /// What a cut or partly malformed input gives: what could be read, with a warning, or a refusal.
        public var damaged: DamagedInput

        /// audiowaveform's default zoom.
        public static let defaultSamplesPerPixel = 256
        public static let defaultBackground = RGBAColor(red: 0xff, green: 0xff, blue: 0xff)
        public static let defaultWaveform = RGBAColor(red: 0x3a, green: 0x74, blue: 0xe6)
        /// The picture's sides, in pixels.
        static let sizes = 16...16384

        public init(
            samplesPerPixel: Int? = nil, pixelsPerSecond: Int? = nil, bits: Int = 16, splitChannels: Bool = false,
            width: Int = 800, height: Int = 250, backgroundColor: RGBAColor = defaultBackground,
            waveformColor: RGBAColor = defaultWaveform, damaged: DamagedInput = .salvage
        ) {
            self.damaged = damaged
            self.samplesPerPixel = samplesPerPixel
            self.pixelsPerSecond = pixelsPerSecond
            self.bits = bits
            self.splitChannels = splitChannels
            self.width = width
            self.height = height
            self.backgroundColor = backgroundColor
            self.waveformColor = waveformColor
        }

        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            samplesPerPixel = try reader.integer("samples_per_pixel", in: 2...(1 << 24))
            pixelsPerSecond = try reader.integer("pixels_per_second", in: 1...96000)
            bits = try reader.integer("bits", in: 8...16) ?? 16
            splitChannels = try reader.boolean("split_channels") ?? false
            width = try reader.integer("width", in: Self.sizes) ?? 800
            height = try reader.integer("height", in: Self.sizes) ?? 250
            backgroundColor = try reader.color("background_color") ?? Self.defaultBackground
            waveformColor = try reader.color("waveform_color") ?? Self.defaultWaveform
            damaged = try reader.choice("damaged", as: DamagedInput.self) ?? .salvage
            try reader.finish()
            try validate()
        }

        /// Decodes stored options with the defaults and checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            samplesPerPixel = try container.decodeIfPresent(Int.self, forKey: .samplesPerPixel)
            pixelsPerSecond = try container.decodeIfPresent(Int.self, forKey: .pixelsPerSecond)
            bits = try container.decodeIfPresent(Int.self, forKey: .bits) ?? 16
            splitChannels = try container.decodeIfPresent(Bool.self, forKey: .splitChannels) ?? false
            width = try container.decodeIfPresent(Int.self, forKey: .width) ?? 800
            height = try container.decodeIfPresent(Int.self, forKey: .height) ?? 250
            backgroundColor =
                try container.decodeIfPresent(RGBAColor.self, forKey: .backgroundColor) ?? Self.defaultBackground
            waveformColor =
                try container.decodeIfPresent(RGBAColor.self, forKey: .waveformColor) ?? Self.defaultWaveform
            damaged = try container.decodeIfPresent(DamagedInput.self, forKey: .damaged) ?? .salvage
            try validate()
        }

        /// `invalid_option` for `bits` other than 8 or 16, both resolutions at once, or a size out of range
        /// (each side, and the picture as a whole as libav bounds it).
        public func validate() throws {
            guard bits == 8 || bits == 16 else {
                throw MediaError(.invalidOption, "invalid value '\(bits)' for option bits: expected 8 or 16")
            }
            if samplesPerPixel != nil && pixelsPerSecond != nil {
                throw MediaError(
                    .invalidOption, "samples_per_pixel and pixels_per_second both set the resolution; give one")
            }
            if let samplesPerPixel, samplesPerPixel < 2 {
                throw MediaError(.invalidOption, "samples_per_pixel must be at least 2")
            }
            guard Self.sizes.contains(width), Self.sizes.contains(height) else {
                throw MediaError(
                    .invalidOption, "the picture's width and height must be from 16 to 16384 (got \(width)x\(height))")
            }
            try ImageEncoder.Format.png.sizeLimit.check(width: width, height: height, what: "the picture")
        }

        /// The samples per pair for audio at `sampleRate`: as given, the rate divided by `pixelsPerSecond`
        /// (truncated, as audiowaveform does), or the default. `invalid_option` when that is under 2, which
        /// only the input's rate reveals.
        func samplesPerPixel(at sampleRate: Int) throws -> Int {
            if let samplesPerPixel { return samplesPerPixel }
            guard let pixelsPerSecond else { return Self.defaultSamplesPerPixel }
            guard sampleRate / pixelsPerSecond >= 2 else {
                throw MediaError(
                    .invalidOption,
                    "pixels_per_second=\(pixelsPerSecond) leaves under 2 samples per pixel at \(sampleRate) Hz")
            }
            return sampleRate / pixelsPerSecond
        }

        enum CodingKeys: String, CodingKey {
            case samplesPerPixel = "samples_per_pixel"
            case pixelsPerSecond = "pixels_per_second"
            case bits
            case splitChannels = "split_channels"
            case width, height, damaged
            case backgroundColor = "background_color"
            case waveformColor = "waveform_color"
        }
    }
}

extension OptionReader {
    /// Reads `key` as a hex colour (`RRGGBB` or `RRGGBBAA`), or nil when absent.
    mutating func color(_ key: String) throws -> RGBAColor? {
        try value(key, expecting: "expected a hex colour RRGGBB or RRGGBBAA, e.g. 3a74e6", RGBAColor.init(parsing:))
    }
}
