import CFFmpeg

/// Bounds for opening untrusted input: how much libav may read and which decoders it may run over it.
///
/// Each job kind states the decoders it needs; libav may open no other one, neither while it probes
/// stream parameters (`codec_whitelist` on the format context) nor when the job decodes (`Decoder`). A
/// hostile file therefore only ever reaches the handful of decoders mediad's work needs, not the hundreds
/// libavcodec ships.
public struct InputPolicy: Sendable {
    /// Bytes libav may read while probing stream parameters.
    public var probeSize: Int = 16 * 1024 * 1024
    /// Microseconds of media libav may analyse while probing.
    public var analyzeDuration: Int = 10_000_000
    /// Streams past this count make the open fail: libav's own default, which no real file reaches (one
    /// with a hundred subtitle tracks is real).
    public var maxStreams: Int32 = 1000
    /// Largest accepted video width or height.
    public var maxDimension: Int32 = 16384
    /// Names of the libav decoders (e.g. `aac`, `h264`) that may run over this input.
    public var decoders: [String]
    /// What a cut or partly malformed input gives (see `DamagedInput`): refused unless the job salvages
    /// it, which a kind does when it can say in its warnings what was lost (its `damaged` option).
    public var damaged: DamagedInput = .refuse

    public init(decoders: [String]) {
        self.decoders = decoders
    }

    /// This policy, with damaged input handled as `damaged` says.
    public func handling(damaged: DamagedInput) -> InputPolicy {
        var policy = self
        policy.damaged = damaged
        return policy
    }

    /// Whether the decoder called `name` may run over this input.
    public func allowsDecoder(_ name: String) -> Bool { decoders.contains(name) }

    /// The `codec_whitelist` value libav takes: decoder names separated by commas.
    var codecWhitelist: String { decoders.joined(separator: ",") }
}

extension InputPolicy {
    /// The PCM decoders of the sample formats mediad reads.
    static let pcmDecoders = SampleFormat.allCases.map { String(cString: avcodec_get_name($0.codecID)) }

    /// Stream copy (remux, demux, probe): libav decodes a frame or two only to complete stream parameters,
    /// so the decoders are those of the codecs mediad's target containers carry, which covers what phones
    /// and cameras record; any other track is still described and copied from its container's data.
    public static let streamCopy = InputPolicy(decoders: audioDecoders + videoDecoders)

    /// The audio decoders of the codecs mediad's containers carry, PCM included.
    static let audioDecoders =
        ["aac", "mp3float", "mp3", "amrnb", "amrwb", "opus", "vorbis", "flac", "alac", "ac3", "eac3"] + pcmDecoders

    /// The video decoders of the codecs mediad's containers carry. VP9's stream parameters (bit depth,
    /// chroma subsampling) come only from a decoded frame: without its decoder, MP4's muxer wrote an empty
    /// `vpcC` that no reader, libav included, opens. (AV1's come from its parser.)
    static let videoDecoders = ["h264", "hevc", "h263", "mpeg4", "vp9"]

    /// Audio analysis (waveform): every audio decoder of `streamCopy`, and no video decoder.
    public static let audioDecoding = InputPolicy(decoders: audioDecoders)

    /// Pictures (thumbnails): every video decoder of `streamCopy`, and no audio decoder.
    public static let videoDecoding = InputPolicy(decoders: videoDecoders)

    /// Transcoding: the audio decoders of stream copy and the video decoders of the codecs phones,
    /// cameras and the web record (H.264, HEVC, VP8, VP9, AV1 through dav1d, MPEG-4 Part 2, H.263, MPEG-2,
    /// ProRes), which a transcode decodes in full.
    public static let transcoding = InputPolicy(
        decoders: streamCopy.decoders + ["vp8", "vp9", "libdav1d", "mpeg2video", "prores"])

    /// Raw H.264/H.265 Annex-B and ADTS AAC for mux.
    public static let elementaryStreams = InputPolicy(decoders: ["h264", "hevc", "aac"])

    /// AAC decoding: the AAC decoder and nothing else.
    public static let aacDecoding = InputPolicy(decoders: ["aac"])

    /// Decode: AAC to samples, H.264 and H.265 to frames.
    public static let decoding = InputPolicy(decoders: ["aac", "h264", "hevc"])

    /// PCM input (encode from WAV): only the PCM sample formats mediad reads.
    public static let pcmDecoding = InputPolicy(decoders: pcmDecoders)
}
