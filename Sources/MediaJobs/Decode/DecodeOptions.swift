import MediaCore

extension DecodeJob {
    /// What to write.
    public struct Options: Sendable, Codable, Equatable {
        /// The output: PCM for an audio track, frames for a video track.
        public enum Format: String, Sendable, Codable, CaseIterable {
            /// PCM with a RIFF/WAVE header.
            case wav
            /// Headerless PCM samples.
            case pcm
            /// YUV4MPEG2: a header with the geometry, then each frame's planes.
            case y4m
            /// Headerless planes in the decoder's own pixel format (I420 for most H.264).
            case yuv
            /// Headerless NV12: the luma plane, then one plane of interleaved U and V.
            case nv12

            /// Whether this format holds video frames rather than audio samples.
            public var isVideo: Bool { self == .y4m || self == .yuv || self == .nv12 }
        }

        /// nil: chosen by the input — its AAC track to WAV when it has one, else its video to Y4M.
        public var format: Format?
        public var sampleFormat: SampleFormat
        /// What a cut or partly malformed input gives: what could be read, with a warning, or a refusal.
        public var damaged: DamagedInput

        public init(format: Format? = nil, sampleFormat: SampleFormat = .s16le, damaged: DamagedInput = .salvage) {
            self.format = format
            self.sampleFormat = sampleFormat
            self.damaged = damaged
        }

        /// Decodes stored options with the defaults and checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decodeIfPresent(Format.self, forKey: .format)
            sampleFormat = try container.decodeIfPresent(SampleFormat.self, forKey: .sampleFormat) ?? .s16le
            damaged = try container.decodeIfPresent(DamagedInput.self, forKey: .damaged) ?? .salvage
            try validate()
        }

        /// Reads `format`, `sample_format` and `damaged`; `sample_format` with a video format is
        /// `conflicting_options`.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            format = try reader.choice("format", as: Format.self)
            let sampleFormat = try reader.choice("sample_format", as: SampleFormat.self)
            self.sampleFormat = sampleFormat ?? .s16le
            damaged = try reader.choice("damaged", as: DamagedInput.self) ?? .salvage
            try reader.finish()
            if let format, format.isVideo, let sampleFormat {
                throw MediaError(
                    .conflictingOptions,
                    "sample_format=\(sampleFormat.rawValue) is for audio; format=\(format.rawValue) writes video frames"
                )
            }
            try validate()
        }

        /// Throws `conflicting_options` for a sample format WAV (which an absent format may choose) cannot hold.
        public func validate() throws {
            if format == .wav || format == nil, !sampleFormat.fitsWAV {
                throw MediaError(
                    .conflictingOptions,
                    "WAV holds little-endian samples; sample_format=\(sampleFormat.rawValue) needs format=pcm")
            }
        }

        enum CodingKeys: String, CodingKey {
            case format, damaged
            case sampleFormat = "sample_format"
        }
    }
}
