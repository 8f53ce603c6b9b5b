import CFFmpeg

/// Owns one `AVCodecParameters`: a codec description handed from an encoder to a muxer stream.
public final class CodecParameters {
    public let pointer: UnsafeMutablePointer<AVCodecParameters>

    public init() {
        guard let parameters = avcodec_parameters_alloc() else { fatalError("avcodec_parameters_alloc: out of memory") }
        pointer = parameters
    }

    deinit {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&parameters)
    }
}
