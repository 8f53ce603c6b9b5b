import CFFmpeg
import Foundation
import MediaCore

/// The input's audio track decoded, cut, re-timed, resampled and mixed to the asked channels by
/// libavfilter, and encoded again in frames of the encoder's size.
final class AudioTranscoder: TrackPipeline {
    let inputIndex: Int
    /// What changed without being asked (a rate or channel count the codec cannot take).
    let warnings: [String]
    private let chain: CodingChain

    /// What the encoder will be given: the asked (or the source's) rate and channels, within what the
    /// codec takes, with a warning for each change that was not asked for.
    struct Plan {
        var target: AudioFormat
        var warnings: [String]

        /// The plan for audio decoded as `source` (a `Decoder`'s output format) from track `track`.
        init(source: AudioFormat, track: Int, options: TranscodeJob.Options) throws {
            let codec = options.resolvedAudioCodec
            guard let name = codec.encoderName, let codecID = codec.codecID else {
                throw MediaError(.internalError, "audio_codec \(codec) has no encoder")
            }
            guard source.sampleRate > 0, source.channels > 0 else {
                throw MediaError(.invalidInput, "the input's audio track \(track) states no sample rate or channels")
            }
            warnings = []
            target = AudioFormat(
                sampleFormat: AudioTranscoder.sampleFormat(for: name),
                sampleRate: options.sampleRate ?? source.sampleRate,
                channels: options.channels ?? min(source.channels, codec.maximumChannels))
            if options.channels == nil, target.channels != source.channels {
                warnings.append("\(codec) takes at most \(target.channels) channels: \(source.channels) mixed down")
            }
            if let rates = Encoder.supportedSampleRates(codecID), !rates.contains(target.sampleRate),
                let nearest = rates.min(by: { abs($0 - target.sampleRate) < abs($1 - target.sampleRate) })
            {
                warnings.append("\(codec) cannot be coded at \(target.sampleRate) Hz: resampled to \(nearest) Hz")
                target.sampleRate = nearest
            }
        }

        /// The filters that resample and mix the audio to `target`: the same for the encoder and for the
        /// loudness measurement, so that what is measured is what is encoded (a 5.1 source measured before
        /// its downmix to stereo landed 3 LU off the target).
        var mix: [String] {
            ["aresample=\(target.sampleRate)", "aformat=channel_layouts=\(target.channelLayoutName)"]
        }
    }

    /// A transcoder of `stream` to `plan` (made from this stream's decoded format when nil), with `gain` dB
    /// applied before the mix.
    init(
        stream: UnsafeMutablePointer<AVStream>, input: InputFile, options: TranscodeJob.Options, window: TimeWindow,
        plan: Plan? = nil, gain: Double?, output: OutputFile
    ) throws {
        inputIndex = Int(stream.pointee.index)
        let decoder = try Decoder(stream: stream, of: input)
        let codec = options.resolvedAudioCodec
        guard let name = codec.encoderName else {
            throw MediaError(.internalError, "audio_codec \(codec) has no encoder")
        }
        let source = decoder.outputFormat
        let plan = try plan ?? Plan(source: source, track: inputIndex, options: options)
        let target = plan.target
        let sampleFormatName = String(cString: av_get_sample_fmt_name(target.sampleFormat))
        let filters =
            window.filters(prefix: "a") + (gain.map { [String(format: "volume=%.4fdB", $0)] } ?? []) + plan.mix + [
                "aformat=sample_fmts=\(sampleFormatName)"
            ]
        let graph = try FilterGraph(
            "[in]\(filters.joined(separator: ","))[out]",
            sources: [.audio(name: "in", format: source, timeBase: stream.pointee.time_base)], sinks: [.audio("out")])
        let globalHeader = output.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        let encoder = try Encoder(named: name) { context in
            context.pointee.sample_fmt = target.sampleFormat
            context.pointee.sample_rate = Int32(target.sampleRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(target.sampleRate))
            context.pointee.bit_rate = Int64(options.audioBitrate ?? codec.defaultBitRate)
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            try target.withChannelLayout { layout in
                try LibavError.check(
                    av_channel_layout_copy(&context.pointee.ch_layout, layout), "setting a channel layout",
                    code: .internalError)
            }
        }
        if let size = encoder.frameSize { try graph.setFrameSize(size, of: "out") }
        let parameters = try encoder.parameters()
        let track = try OutputTrack(output: output, parameters: parameters.pointer, timeBase: encoder.timeBase)
        self.warnings = plan.warnings
        chain = try CodingChain(
            decoder: decoder, graph: graph, encoder: encoder, track: track,
            nominalFrameDuration: nil, nominalPacketDuration: 0)
    }

    /// Planar float where the encoder takes it (aac, libmp3lame), else its first format (libopus: s16).
    static func sampleFormat(for encoderName: String) -> AVSampleFormat {
        guard let codec = avcodec_find_encoder_by_name(encoderName), var format = codec.pointee.sample_fmts else {
            return AV_SAMPLE_FMT_FLTP
        }
        let first = format.pointee
        while format.pointee != AV_SAMPLE_FMT_NONE {
            if format.pointee == AV_SAMPLE_FMT_FLTP || format.pointee == AV_SAMPLE_FMT_FLT { return format.pointee }
            format += 1
        }
        return first
    }

    var track: OutputTrack { chain.track }

    var isComplete: Bool { chain.isComplete }

    func send(_ packet: Packet) throws { try chain.send(packet) }

    func finish() throws { try chain.finish() }

    func report() -> TranscodeResult.Track {
        let format = chain.encoder.inputFormat
        return TranscodeResult.Track(
            kind: "audio", codec: chain.encoder.codecName, profile: nil, copied: false, frames: track.packets,
            duration: track.duration, bitrate: track.bitrate, sampleRate: format.sampleRate, channels: format.channels)
    }
}
