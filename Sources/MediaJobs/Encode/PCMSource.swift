import CFFmpeg
import MediaCore

/// The input of an encode job, raw PCM or WAV, delivered as decoded frames of its own sample format.
///
/// WAV is recognised by its RIFF header and describes itself: explicit options must agree with it.
/// Any other input that the sniffer does not recognise as a container is raw PCM described by the
/// options (defaults 44100 Hz, 2 channels, s16le). Both kinds go through libav's `pcm_*` decoders, which
/// read the packed 24-bit and big-endian layouts that libswresample has no format for.
final class PCMSource {
    let sampleFormat: SampleFormat
    let sampleRate: Int
    let channels: Int
    /// Sample frames in the input, if known (WAV states it; raw PCM is measured).
    let totalSamples: Int64
    /// For raw PCM described by defaults rather than options: what was assumed, e.g. `44100 Hz`, so the job
    /// can say so (a 48 kHz mono capture read as 44.1 kHz stereo plays at the wrong speed and length).
    let assumed: [String]
    private let decoder: Decoder
    private let reader: Reader
    private let packet = Packet()
    private var samplesRead: Int64 = 0
    private var drained = false

    private enum Reader {
        case raw(RawPCMReader)
        case wav(InputFile, streamIndex: Int)
    }

    /// Sample frames per packet read from raw PCM.
    private static let chunkSamples = 4096

    init(path: String, options: EncodeJob.Options) throws {
        switch try InputSniffer.sniff(path: path) {
        case .empty:
            throw MediaError(.emptyInput, "the input file is empty")
        case .container(.wav):
            let input = try InputFile(path: path, container: .wav, policy: .pcmDecoding)
            guard
                let stream = input.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
                )
            else { throw MediaError(.missingStream, "the WAV file has no audio stream") }
            let parameters = stream.pointee.codecpar.pointee
            guard let format = SampleFormat(codecID: parameters.codec_id) else {
                throw MediaError(
                    .unsupportedCodec,
                    "the WAV file holds \(String(cString: avcodec_get_name(parameters.codec_id))); "
                        + "encode takes PCM in \(SampleFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            (sampleFormat, sampleRate, channels) = (
                format, Int(parameters.sample_rate), Int(parameters.ch_layout.nb_channels)
            )
            try PCMSource.checkAgreement(options, sampleFormat: format, sampleRate: sampleRate, channels: channels)
            let duration = av_rescale_q(
                stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: Int32(sampleRate)))
            totalSamples = stream.pointee.duration > 0 ? duration : 0
            decoder = try Decoder(stream: stream, of: input)
            reader = .wav(input, streamIndex: Int(stream.pointee.index))
            assumed = []
        case .container(let container):
            throw MediaError(
                .unsupportedFormat, "the input is \(container.displayName); encode takes raw PCM or WAV")
        case .foreign(let what):
            throw MediaError(.unsupportedFormat, "the input is \(what); encode takes raw PCM or WAV")
        case .unrecognized:
            sampleFormat = options.sampleFormat ?? .s16le
            sampleRate = options.sampleRate ?? 44100
            channels = options.channels ?? 2
            assumed = [
                options.sampleRate == nil ? "sample_rate \(sampleRate) Hz" : nil,
                options.channels == nil ? "channels \(channels)" : nil,
                options.sampleFormat == nil ? "sample_format \(sampleFormat.rawValue)" : nil,
            ].compactMap { $0 }
            let raw = try RawPCMReader(path: path, sampleFormat: sampleFormat, channels: channels)
            totalSamples = raw.totalSamples
            decoder = try Decoder(pcm: sampleFormat, sampleRate: sampleRate, channels: channels)
            reader = .raw(raw)
        }
    }

    /// The decoded format of every frame this source delivers.
    var format: AudioFormat {
        AudioFormat(sampleFormat: sampleFormat.codecSampleFormat, sampleRate: sampleRate, channels: channels)
    }

    /// Fraction of the input delivered so far, 0…1.
    var progress: Double { totalSamples > 0 ? min(1, Double(samplesRead) / Double(totalSamples)) : 0 }

    /// Sample frames delivered so far.
    var samplesDelivered: Int64 { samplesRead }

    /// Seconds of audio delivered so far.
    var seconds: Double { Double(samplesRead) / Double(sampleRate) }

    /// Seconds of audio in the input, when known (0 otherwise).
    var totalSeconds: Double { Double(totalSamples) / Double(sampleRate) }

    /// Decodes the next frame into `frame`; false at the end of the input.
    func next(into frame: Frame) throws -> Bool {
        while true {
            if try decoder.receive(into: frame) {
                if let index = frame.firstNonFiniteSample {
                    let position = samplesRead + Int64(index)
                    throw MediaError(
                        .invalidInput,
                        "sample \(position) (at \(Double(position) / Double(sampleRate)) s) is NaN or infinite; "
                            + "float PCM must hold finite samples")
                }
                samplesRead += Int64(frame.sampleCount)
                return true
            }
            if drained { return false }
            if try readPacket() {
                try decoder.send(packet)
            } else {
                try decoder.send(nil)
                drained = true
            }
        }
    }

    private func readPacket() throws -> Bool {
        switch reader {
        case .raw(let raw):
            return try raw.read(PCMSource.chunkSamples, into: packet)
        case .wav(let input, let streamIndex):
            while try input.read(into: packet) {
                if packet.streamIndex == streamIndex { return true }
            }
            return false
        }
    }

    /// Throws `conflicting_options` when an explicit option contradicts the WAV header.
    private static func checkAgreement(
        _ options: EncodeJob.Options, sampleFormat: SampleFormat, sampleRate: Int, channels: Int
    ) throws {
        var conflicts: [String] = []
        if let wanted = options.sampleRate, wanted != sampleRate {
            conflicts.append("sample_rate=\(wanted) but the WAV header says \(sampleRate)")
        }
        if let wanted = options.channels, wanted != channels {
            conflicts.append("channels=\(wanted) but the WAV header says \(channels)")
        }
        if let wanted = options.sampleFormat, wanted != sampleFormat {
            conflicts.append("sample_format=\(wanted.rawValue) but the WAV header says \(sampleFormat.rawValue)")
        }
        guard conflicts.isEmpty else {
            throw MediaError(
                .conflictingOptions,
                conflicts.joined(separator: "; ") + " (a WAV input describes itself; omit these options)")
        }
    }
}
