import CFFmpeg

/// Owns one `AVCodecParameters`: a codec description mediad builds itself (an elementary stream it
/// parsed) or takes from an encoder for a muxer stream.
public final class CodecParameters: LibavObject<AVCodecParameters> {
    public init() {
        super.init(
            "avcodec_parameters_alloc", allocate: avcodec_parameters_alloc, free: { avcodec_parameters_free(&$0) })
    }

    /// Replaces the extradata with a copy of `bytes`, allocated by libav with zeroed input padding.
    public func setExtradata(_ bytes: [UInt8]) throws {
        try Self.setExtradata(bytes, of: pointer)
    }

    /// Replaces the extradata of `parameters` (owned elsewhere, e.g. by a muxer's stream) with a copy of
    /// `bytes`, allocated by libav with zeroed input padding.
    static func setExtradata(_ bytes: [UInt8], of parameters: UnsafeMutablePointer<AVCodecParameters>) throws {
        av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata_size = 0
        let padded = bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let memory = av_mallocz(padded)?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError(.internalError, "av_mallocz: out of memory")
        }
        memory.update(from: bytes, count: bytes.count)
        parameters.pointee.extradata = memory
        parameters.pointee.extradata_size = Int32(bytes.count)
    }
}
