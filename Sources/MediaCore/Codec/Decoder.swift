import CFFmpeg

/// Owns an `AVCodecContext` opened for decoding, driven by libav's send-packet/receive-frame loop.
///
/// Packets from a demuxer keep their side data, so the decoder itself drops encoder priming and edit-list
/// trims (`AV_PKT_DATA_SKIP_SAMPLES`, discard flags) exactly as the ffmpeg tool does.
public final class Decoder {
    public let context: UnsafeMutablePointer<AVCodecContext>

    /// A decoder for `stream` of `input`, configured from its codec parameters; `unsupported_codec` when
    /// the input's policy does not allow that decoder. `threads` above 1 lets a video decoder work on
    /// several frames or slices at once (0: as many as libav sees cores).
    public convenience init(stream: UnsafeMutablePointer<AVStream>, of input: InputFile, threads: Int = 1) throws {
        let parameters = stream.pointee.codecpar!
        try self.init(
            codecID: parameters.pointee.codec_id, timeBase: stream.pointee.time_base, policy: input.policy
        ) { context in
            try LibavError.check(
                avcodec_parameters_to_context(context, parameters), "reading codec parameters", code: .invalidInput)
            context.pointee.thread_count = Int32(threads)
            context.pointee.framerate = stream.pointee.avg_frame_rate
        }
    }

    /// A `pcm_*` decoder for raw samples in `sampleFormat`; packets are timed in 1/`sampleRate`.
    public convenience init(pcm sampleFormat: SampleFormat, sampleRate: Int, channels: Int) throws {
        let timeBase = AVRational(num: 1, den: Int32(sampleRate))
        try self.init(codecID: sampleFormat.codecID, timeBase: timeBase, policy: .pcmDecoding) { context in
            context.pointee.sample_rate = Int32(sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        }
    }

    private init(
        codecID: AVCodecID, timeBase: AVRational, policy: InputPolicy,
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void
    ) throws {
        guard let codec = avcodec_find_decoder(codecID) else {
            throw MediaError(.unsupportedCodec, "no decoder for \(String(cString: avcodec_get_name(codecID)))")
        }
        let name = String(cString: codec.pointee.name)
        guard policy.allowsDecoder(name) else {
            throw MediaError(
                .unsupportedCodec,
                "this job does not decode \(String(cString: avcodec_get_name(codecID))); it decodes \(policy.decoders.joined(separator: ", "))"
            )
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.internalError, "avcodec_alloc_context3 failed")
        }
        self.context = context
        try configure(context)
        context.pointee.pkt_timebase = timeBase
        LibavLog.clearLastError()
        let options = LibavDictionary(["codec_whitelist": policy.codecWhitelist])
        try LibavError.check(
            avcodec_open2(context, codec, &options.pointer), "cannot open the \(name) decoder", code: .unsupportedCodec)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&pointer)
    }

    public var codecName: String { String(cString: avcodec_get_name(context.pointee.codec_id)) }

    /// The format of the frames this decoder produces (as far as known before the first frame).
    public var outputFormat: AudioFormat { AudioFormat(of: context) }

    /// Sends one packet, or `nil` to start draining at the end of the input.
    public func send(_ packet: Packet?) throws {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == mediad_averror_eof() && packet == nil { return }
        try LibavError.check(result, "decoding \(codecName)")
    }

    /// Receives the next decoded frame; false when the decoder needs more input or is fully drained.
    public func receive(into frame: Frame) throws -> Bool {
        frame.unref()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result == mediad_averror_eagain() || result == mediad_averror_eof() { return false }
        try LibavError.check(result, "decoding \(codecName)")
        return true
    }
}
