import CFFmpeg
import MediaCore

/// Decodes the AAC track of an ADTS, M4A or MP4 file to WAV or raw PCM.
///
/// libavcodec's AAC decoder drops encoder priming itself (the mov demuxer marks it on the first packets).
/// libav 5.1 trims only the start of an edit list, not its end, so the ffmpeg tool of that version keeps
/// the last frame's padding (under 1024 samples); mediad stops at the track's edited duration instead, so
/// an M4A made from N samples decodes to exactly N samples.
///
/// Damaged packets — typically a last ADTS frame cut short — are skipped and reported in a warning, as a
/// player would; a file in which no packet decodes fails with `invalid_input`.
public struct DecodeJob: Sendable {
    /// The formats decode reads: ADTS, and the MP4 family (its first audio track).
    public static let acceptedInputs: [InputContainer] = [.adts, .mp4]

    /// What to write.
    public struct Options: Sendable, Codable, Equatable {
        /// `wav`: PCM with a RIFF/WAVE header; `pcm`: headerless samples.
        public enum Format: String, Sendable, Codable, CaseIterable { case wav, pcm }

        public var format: Format
        public var sampleFormat: SampleFormat

        public init(format: Format = .wav, sampleFormat: SampleFormat = .s16le) {
            self.format = format
            self.sampleFormat = sampleFormat
        }

        /// Decodes stored options with the defaults and checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decodeIfPresent(Format.self, forKey: .format) ?? .wav
            sampleFormat = try container.decodeIfPresent(SampleFormat.self, forKey: .sampleFormat) ?? .s16le
            try validate()
        }

        /// Reads `format` and `sample_format`.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            format = try reader.choice("format", as: Format.self) ?? .wav
            sampleFormat = try reader.choice("sample_format", as: SampleFormat.self) ?? .s16le
            try reader.finish()
            try validate()
        }

        /// Throws `conflicting_options` for a sample format WAV cannot hold.
        public func validate() throws {
            if format == .wav && !sampleFormat.fitsWAV {
                throw MediaError(
                    .conflictingOptions,
                    "WAV holds little-endian samples; sample_format=\(sampleFormat.rawValue) needs format=pcm")
            }
        }

        enum CodingKeys: String, CodingKey {
            case format
            case sampleFormat = "sample_format"
        }
    }

    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> DecodeResult {
        try options.validate()
        let file = try InputFile(path: input, accepting: Self.acceptedInputs, policy: .aacDecoding)
        try file.findStreamInfo()
        let stream = try audioStream(of: file)
        let decoder = try Decoder(stream: stream, of: file)
        let packet = Packet()
        let frame = Frame()
        var writer: AudioWriter? = nil
        var damaged = 0
        var samples: Int64 = 0
        let presented = presentedSamples(of: stream, in: file)

        func drainDecoder() throws {
            while true {
                do {
                    guard try decoder.receive(into: frame) else { return }
                } catch let error as MediaError where error.code == .invalidInput {
                    damaged += 1
                    return
                }
                if let presented {
                    guard samples < presented else { continue }
                    frame.pointer.pointee.nb_samples = Int32(min(Int64(frame.sampleCount), presented - samples))
                }
                let sink = try writer ?? makeWriter(for: AudioFormat(of: frame))
                writer = sink
                try sink.write(frame)
                samples += Int64(frame.sampleCount)
            }
        }

        while try file.read(into: packet) {
            guard packet.streamIndex == Int(stream.pointee.index) else { continue }
            try context.checkpoint()
            do {
                try decoder.send(packet)
            } catch let error as MediaError where error.code == .invalidInput {
                damaged += 1
            }
            try drainDecoder()
            context.reportProgress(file.progress)
        }
        try decoder.send(nil)
        try drainDecoder()
        guard let writer, samples > 0 else {
            throw MediaError(
                .invalidInput, "no audio could be decoded from the AAC track (\(damaged) damaged packet(s))")
        }
        try writer.finish()
        context.reportProgress(1)
        let warnings =
            damaged > 0 ? ["skipped \(damaged) damaged AAC packet(s); the output may have a gap or end early"] : []
        return DecodeResult(
            outputs: [output], warnings: warnings, sampleRate: writer.format.sampleRate,
            channels: writer.format.channels, sampleFormat: options.sampleFormat, samples: samples,
            duration: Double(samples) / Double(writer.format.sampleRate))
    }

    /// Samples the MP4 track presents (its edit list's duration), or nil where the container does not say:
    /// ADTS durations are estimates and are never used to cut.
    private func presentedSamples(of stream: UnsafeMutablePointer<AVStream>, in file: InputFile) -> Int64? {
        let duration = stream.pointee.duration
        let rate = stream.pointee.codecpar.pointee.sample_rate
        guard file.container == .mp4, duration != mediad_nopts_value(), duration > 0, rate > 0 else { return nil }
        return av_rescale_q(duration, stream.pointee.time_base, AVRational(num: 1, den: rate))
    }

    /// The first audio stream, which must be AAC; every other stream is left unread.
    private func audioStream(of file: InputFile) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = file.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO })
        else { throw MediaError(.missingStream, "the \(file.container.displayName) input has no audio track") }
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let codecID = stream.pointee.codecpar.pointee.codec_id
        guard codecID == AV_CODEC_ID_AAC else {
            throw MediaError(
                .unsupportedCodec, "the audio track is \(String(cString: avcodec_get_name(codecID))); decode takes AAC")
        }
        return stream
    }

    private func makeWriter(for decoded: AudioFormat) throws -> AudioWriter {
        let muxer = options.format == .wav ? "wav" : options.sampleFormat.rawFormatName
        let file = try OutputFile(path: output, muxer: muxer)
        return try AudioWriter(output: file, encoder: try Encoder.pcm(options.sampleFormat, like: decoded))
    }
}
