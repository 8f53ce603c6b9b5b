import CFFmpeg

/// Encodes decoded audio frames into the one audio stream of an output file.
///
/// Frames of any size and sample format go in; a resampler converts them to what the encoder takes, an
/// audio FIFO regroups them into the encoder's fixed frame size (AAC: 1024, the last frame shorter), and
/// the packets go to the muxer with the encoder's own timestamps — including the negative start that
/// marks AAC priming, which the mov muxer turns into an edit list.
///
/// Channels pass through in order: a layout is relabelled to the encoder's, never remixed.
public final class AudioWriter {
    public let output: OutputFile
    public let encoder: Encoder
    private let stream: UnsafeMutablePointer<AVStream>
    private let fifo: AudioFifo?
    private var resampler: Resampler?
    private let converted = Frame()
    private let staged = Frame()
    private let packet = Packet()
    private var nextPts: Int64 = 0
    /// Samples per channel handed to the encoder so far.
    public private(set) var samplesEncoded: Int64 = 0
    /// Packets (encoded frames) written to the output so far.
    public private(set) var packetsWritten = 0
    /// Payload bytes written to the output so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Adds the encoder's stream to `output` and writes the header with `muxerOptions`.
    public convenience init(output: OutputFile, encoder: Encoder, muxerOptions: [String: String] = [:]) throws {
        try self.init(sharing: output, encoder: encoder)
        try output.writeHeader(options: muxerOptions)
    }

    /// Adds the encoder's stream to `output`, which other streams share: whoever owns the file writes its
    /// header before the first `write` and finishes it after `flush()`.
    public init(sharing output: OutputFile, encoder: Encoder) throws {
        self.output = output
        self.encoder = encoder
        let parameters = try encoder.parameters()
        stream = try output.addStream(copying: parameters.pointer, timeBase: encoder.timeBase)
        fifo = try encoder.frameSize.map { try AudioFifo(format: encoder.inputFormat, capacity: 2 * $0) }
    }

    /// The format the encoder works in (rate, channels, layout).
    public var format: AudioFormat { encoder.inputFormat }

    /// Converts and encodes all samples of `frame`.
    public func write(_ frame: Frame) throws {
        guard frame.sampleCount > 0 else { return }
        try resampler(for: frame).convert(frame, into: converted)
        try push(converted)
    }

    /// Drains the resampler, the FIFO (a short last frame) and the encoder, then finishes the file.
    public func finish() throws {
        try flush()
        try output.finish()
    }

    /// Drains the resampler, the FIFO (a short last frame) and the encoder into the file, leaving the file
    /// open for the streams it shares it with.
    public func flush() throws {
        if let resampler {
            try resampler.flush(into: converted)
            try push(converted)
        }
        if let fifo, fifo.count > 0 {
            let count = try fifo.read(fifo.count, into: staged, pts: nextPts)
            nextPts += Int64(count)
            try encode(staged)
        }
        try encoder.send(nil)
        try drain()
    }

    private func resampler(for frame: Frame) throws -> Resampler {
        if let resampler {
            guard resampler.accepts(frame) else {
                throw MediaError(
                    .invalidInput,
                    "the audio changes format mid-stream, from \(resampler.input) to \(AudioFormat(of: frame))")
            }
            return resampler
        }
        var input = AudioFormat(of: frame)
        if input.channels == format.channels { input.channelMask = format.channelMask }
        let created = try Resampler(from: input, to: format)
        resampler = created
        return created
    }

    private func push(_ samples: Frame) throws {
        guard samples.sampleCount > 0 else { return }
        guard let fifo, let frameSize = encoder.frameSize else {
            samples.pointer.pointee.pts = nextPts
            nextPts += Int64(samples.sampleCount)
            try encode(samples)
            return
        }
        try fifo.write(samples)
        while fifo.count >= frameSize {
            let count = try fifo.read(frameSize, into: staged, pts: nextPts)
            nextPts += Int64(count)
            try encode(staged)
        }
    }

    private func encode(_ frame: Frame) throws {
        try encoder.send(frame)
        samplesEncoded += Int64(frame.sampleCount)
        try drain()
    }

    private func drain() throws {
        while try encoder.receive(into: packet) {
            packet.streamIndex = Int(stream.pointee.index)
            packet.rescale(from: encoder.timeBase, to: stream.pointee.time_base)
            bytesWritten += Int64(packet.size)
            packetsWritten += 1
            try output.write(packet)
        }
    }
}
