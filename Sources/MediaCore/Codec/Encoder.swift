import CFFmpeg

/// Owns an `AVCodecContext` opened for encoding, driven by libav's send-frame/receive-packet loop.
///
/// Packets come out timed in the encoder's time base (1/sample rate). Encoders with a delay (AAC) start
/// with a negative timestamp for their priming samples; a muxer that understands it (mov) records the
/// priming in an edit list so that decoders trim it again.
public final class Encoder {
    public let context: UnsafeMutablePointer<AVCodecContext>

    /// libav's native AAC-LC encoder for `format` (whose sample format must be planar float) at `bitRate`.
    public static func aac(_ format: AudioFormat, bitRate: Int, globalHeader: Bool) throws -> Encoder {
        try Encoder(codecID: AV_CODEC_ID_AAC, format: format) { context in
            context.pointee.bit_rate = Int64(bitRate)
            context.pointee.profile = FF_PROFILE_AAC_LOW
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
    }

    /// A `pcm_*` encoder writing `sampleFormat` at the rate and layout of `format`, from frames in
    /// the sample format's `codecSampleFormat`.
    public static func pcm(_ sampleFormat: SampleFormat, like format: AudioFormat) throws -> Encoder {
        try Encoder(codecID: sampleFormat.codecID, format: format.with(sampleFormat: sampleFormat.codecSampleFormat)) {
            _ in
        }
    }

    /// The channel layouts the `codecID` encoder accepts, as masks, or nil when it takes any layout.
    public static func supportedChannelMasks(_ codecID: AVCodecID) -> [UInt64]? {
        guard let codec = avcodec_find_encoder(codecID), var layout = codec.pointee.ch_layouts else { return nil }
        var masks: [UInt64] = []
        while layout.pointee.nb_channels != 0 {
            if layout.pointee.order == AV_CHANNEL_ORDER_NATIVE { masks.append(layout.pointee.u.mask) }
            layout += 1
        }
        return masks
    }

    /// The sample rates the `codecID` encoder accepts, or nil when it takes any rate.
    public static func supportedSampleRates(_ codecID: AVCodecID) -> [Int]? {
        guard let codec = avcodec_find_encoder(codecID), var rate = codec.pointee.supported_samplerates else {
            return nil
        }
        var rates: [Int] = []
        while rate.pointee != 0 {
            rates.append(Int(rate.pointee))
            rate += 1
        }
        return rates
    }

    /// The libav encoder called `name` (e.g. `libx264`, `libopus`), set up by `configure` and opened with
    /// the encoder's private `options` (e.g. `preset`, `x264-params`). An option the encoder does not
    /// take is an `internal_error`: mediad builds these itself, never from a request.
    public init(
        named name: String, options: [String: String] = [:],
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void
    ) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw MediaError(.unsupportedCodec, "this libav has no \(name) encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.internalError, "avcodec_alloc_context3 failed")
        }
        self.context = context
        try configure(context)
        LibavLog.clearLastError()
        let dictionary = LibavDictionary(options)
        try LibavError.check(
            avcodec_open2(context, codec, &dictionary.pointer), "cannot open the \(name) encoder",
            code: .unsupportedCodec)
        guard dictionary.remainingKeys.isEmpty else {
            throw MediaError(
                .internalError, "the \(name) encoder took no option \(dictionary.remainingKeys.joined(separator: ", "))"
            )
        }
    }

    private init(codecID: AVCodecID, format: AudioFormat, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void)
        throws
    {
        guard let codec = avcodec_find_encoder(codecID) else {
            throw MediaError(.unsupportedCodec, "no encoder for \(String(cString: avcodec_get_name(codecID)))")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(.internalError, "avcodec_alloc_context3 failed")
        }
        self.context = context
        context.pointee.sample_fmt = format.sampleFormat
        context.pointee.sample_rate = Int32(format.sampleRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        try format.withChannelLayout { layout in
            try LibavError.check(
                av_channel_layout_copy(&context.pointee.ch_layout, layout), "setting a channel layout",
                code: .internalError)
        }
        configure(context)
        LibavLog.clearLastError()
        try LibavError.check(
            avcodec_open2(context, codec, nil), "cannot open the \(String(cString: codec.pointee.name)) encoder",
            code: .unsupportedCodec)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&pointer)
    }

    public var codecName: String { String(cString: avcodec_get_name(context.pointee.codec_id)) }

    /// The format frames must have.
    public var inputFormat: AudioFormat { AudioFormat(of: context) }

    /// Samples per channel each frame must hold (the last may be shorter), or nil if any size will do.
    public var frameSize: Int? {
        let variable = context.pointee.codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
        return variable || context.pointee.frame_size <= 0 ? nil : Int(context.pointee.frame_size)
    }

    public var timeBase: AVRational { context.pointee.time_base }

    /// Sends one frame, or `nil` to flush the encoder at the end of the input.
    public func send(_ frame: Frame?) throws {
        let result = avcodec_send_frame(context, frame?.pointer)
        if result == mediad_averror_eof() && frame == nil { return }
        try LibavError.check(result, "encoding \(codecName)", code: .internalError)
    }

    /// Receives the next packet; false when the encoder needs more input or is fully flushed.
    public func receive(into packet: Packet) throws -> Bool {
        packet.unref()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result == mediad_averror_eagain() || result == mediad_averror_eof() { return false }
        try LibavError.check(result, "encoding \(codecName)", code: .internalError)
        return true
    }

    /// Codec parameters describing this encoder's output, for a muxer stream.
    public func parameters() throws -> CodecParameters {
        let parameters = CodecParameters()
        try LibavError.check(
            avcodec_parameters_from_context(parameters.pointer, context), "copying encoder parameters",
            code: .internalError)
        return parameters
    }
}
