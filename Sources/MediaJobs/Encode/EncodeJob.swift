import CFFmpeg
import MediaCore

/// Encodes raw PCM or WAV to AAC-LC (M4A, MP4 or ADTS), or wraps it in a WAV header.
///
/// AAC comes from libavcodec's native `aac` encoder after libswresample has converted the samples to
/// planar float. In M4A/MP4 the encoder's priming and the last frame's padding are recorded in an edit
/// list, so a player that honours it plays exactly the samples that went in (libav 5.1 itself trims only
/// the priming); ADTS cannot record either, which the result says in a warning.
public struct EncodeJob: Sendable {
    /// What to encode to, and how to read raw PCM input.
    public struct Options: Sendable, Codable, Equatable {
        /// The output container; `wav` stores the input samples unchanged.
        public enum Format: String, Sendable, Codable, CaseIterable {
            case m4a, adts, mp4, wav

            /// The libav muxer that writes this format.
            public var muxerName: String {
                switch self {
                case .m4a: "ipod"
                case .adts: "adts"
                case .mp4: "mp4"
                case .wav: "wav"
                }
            }

            /// Muxer options. The ISO formats put the moov box first so playback can start at once, and
            /// count movie time in samples so the edit list that hides the priming ends on the exact last
            /// sample (the default millisecond timescale would round it).
            func muxerOptions(sampleRate: Int) -> [String: String] {
                guard self == .m4a || self == .mp4 else { return [:] }
                return ["movflags": "+faststart", "movie_timescale": String(sampleRate)]
            }
        }

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
        public var format: Format

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

        /// Decodes stored options with the defaults and range checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sampleRate = try container.decodeIfPresent(Int.self, forKey: .sampleRate)
            channels = try container.decodeIfPresent(Int.self, forKey: .channels)
            sampleFormat = try container.decodeIfPresent(SampleFormat.self, forKey: .sampleFormat)
            bitrate = try container.decodeIfPresent(Int.self, forKey: .bitrate) ?? 96000
            format = try container.decodeIfPresent(Format.self, forKey: .format) ?? .m4a
            try validate()
        }

        /// Reads `sample_rate`, `channels`, `sample_format`, `bitrate` (e.g. `96k`) and `format`.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            sampleRate = try reader.integer("sample_rate", in: Options.sampleRates)
            channels = try reader.integer("channels", in: Options.channelCounts)
            sampleFormat = try reader.choice("sample_format", as: SampleFormat.self)
            bitrate = try reader.bitRate("bitrate", in: Options.bitrates) ?? 96000
            format = try reader.choice("format", as: Format.self) ?? .m4a
            try reader.finish()
        }

        /// Throws `invalid_option` for values outside the ranges `init(parsing:)` enforces.
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
        }

        enum CodingKeys: String, CodingKey {
            case sampleRate = "sample_rate"
            case channels
            case sampleFormat = "sample_format"
            case bitrate
            case format
        }
    }

    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> EncodeResult {
        try options.validate()
        let source = try PCMSource(path: input, options: options)
        var warnings: [String] = []
        if !source.assumed.isEmpty {
            warnings.append(
                "raw PCM with no \(source.assumed.map { $0.split(separator: " ")[0] }.joined(separator: ", ")) given: "
                    + "read as \(source.assumed.joined(separator: ", ")); pass them if the capture differs")
        }
        let writer = try makeWriter(for: source, warnings: &warnings)
        let frame = Frame()
        while try source.next(into: frame) {
            try context.checkpoint()
            try writer.write(frame)
            context.reportProgress(source.progress)
        }
        guard source.samplesDelivered > 0 else { throw MediaError(.emptyInput, "the input holds no audio samples") }
        try writer.finish()
        context.reportProgress(1)
        let storedBitrate = writer.format.sampleRate * writer.format.channels * source.sampleFormat.bytesPerSample * 8
        return EncodeResult(
            outputs: [output], warnings: warnings, sampleRate: writer.format.sampleRate, channels: source.channels,
            inputSampleFormat: source.sampleFormat, frames: writer.packetsWritten, samples: source.samplesDelivered,
            duration: Double(source.samplesDelivered) / Double(source.sampleRate),
            bitrate: options.format == .wav ? storedBitrate : options.bitrate)
    }

    private func makeWriter(for source: PCMSource, warnings: inout [String]) throws -> AudioWriter {
        let file = try OutputFile(path: output, muxer: options.format.muxerName)
        guard options.format != .wav else {
            var stored = source.sampleFormat
            if !stored.fitsWAV {
                stored = .s16le
                warnings.append(
                    "WAV holds little-endian samples: the \(source.sampleFormat.rawValue) input was stored as s16le")
            }
            return try AudioWriter(output: file, encoder: try Encoder.pcm(stored, like: source.format))
        }
        let target = try aacFormat(for: source, warnings: &warnings)
        let globalHeader = file.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        let encoder = try Encoder.aac(target, bitRate: options.bitrate, globalHeader: globalHeader)
        if options.format == .adts {
            warnings.append(
                "ADTS cannot record encoder priming: decoders will output \(encoder.context.pointee.initial_padding) "
                    + "extra samples at the start and pad the end to a whole frame; use m4a or mp4 for exact length")
        }
        return try AudioWriter(
            output: file, encoder: encoder, muxerOptions: options.format.muxerOptions(sampleRate: target.sampleRate))
    }

    /// Planar float at a rate and in a layout the AAC encoder accepts.
    private func aacFormat(for source: PCMSource, warnings: inout [String]) throws -> AudioFormat {
        var rate = source.sampleRate
        if let rates = Encoder.supportedSampleRates(AV_CODEC_ID_AAC), !rates.contains(rate),
            let nearest = rates.min(by: { abs($0 - rate) < abs($1 - rate) })
        {
            warnings.append("AAC cannot be coded at \(rate) Hz: resampled to \(nearest) Hz")
            rate = nearest
        }
        var mask: UInt64 = 0
        if let masks = Encoder.supportedChannelMasks(AV_CODEC_ID_AAC) {
            let usual = AudioFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: rate, channels: source.channels)
                .withChannelLayout { $0.pointee.u.mask }
            let candidates = masks.filter { $0.nonzeroBitCount == source.channels }
            guard let match = candidates.first(where: { $0 == usual }) ?? candidates.first else {
                let counts = masks.map { String($0.nonzeroBitCount) }.joined(separator: ", ")
                throw MediaError(
                    .unsupportedCodec, "the AAC encoder cannot encode \(source.channels) channels (it takes \(counts))")
            }
            mask = match
        }
        return AudioFormat(
            sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: rate, channels: source.channels, channelMask: mask)
    }
}
