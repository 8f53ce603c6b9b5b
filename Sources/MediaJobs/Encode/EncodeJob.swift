import CFFmpeg
import MediaCore

/// Encodes raw PCM or WAV to AAC-LC (M4A, MP4 or ADTS), or wraps it in a WAV header; camera frames
/// (with or without PCM beside them) go through `CameraEncode`.
///
/// AAC comes from libavcodec's native `aac` encoder after libswresample has converted the samples to
/// planar float. In M4A/MP4 the encoder's priming and the last frame's padding are recorded in an edit
/// list, so a player that honours it plays exactly the samples that went in (libav 5.1 itself trims only
/// the priming); ADTS cannot record either, which the result says in a warning.
public struct EncodeJob: Sendable {
    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> EncodeResult {
        try options.validate()
        let source = try PCMSource(path: input, options: options)
        var warnings = Self.assumptions(of: source)
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

    /// A warning naming what raw PCM was read as, when options left its description to the defaults.
    static func assumptions(of source: PCMSource) -> [String] {
        guard !source.assumed.isEmpty else { return [] }
        return [
            "raw PCM with no \(source.assumed.map { $0.split(separator: " ")[0] }.joined(separator: ", ")) given: "
                + "read as \(source.assumed.joined(separator: ", ")); pass them if the capture differs"
        ]
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
        let target = try Self.aacFormat(for: source, warnings: &warnings)
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
    static func aacFormat(for source: PCMSource, warnings: inout [String]) throws -> AudioFormat {
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
