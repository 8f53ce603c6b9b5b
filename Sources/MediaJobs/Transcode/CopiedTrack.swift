import CFFmpeg
import MediaCore

/// An input track written to the output unchanged (`video_codec=copy`, `audio_codec=copy`), moved to
/// start where the re-encoded tracks start.
final class CopiedTrack: TrackPipeline {
    let inputIndex: Int
    let track: OutputTrack
    let isComplete = false
    private let kind: String
    private let codec: String
    /// The input's start in the stream's time base, subtracted from every timestamp.
    private let offset: Int64

    init(
        stream: UnsafeMutablePointer<AVStream>, format: TranscodeJob.Format, origin: Double, output: OutputFile
    ) throws {
        inputIndex = Int(stream.pointee.index)
        let parameters = stream.pointee.codecpar!
        let isVideo = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        kind = isVideo ? "video" : "audio"
        codec = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let carried = Self.carries(format, parameters.pointee.codec_id)
        guard carried else {
            throw MediaError(
                .unsupportedCodec,
                "\(format.rawValue) cannot carry the input's \(codec) \(kind): encode it instead of copy")
        }
        offset = av_rescale_q(
            Int64((origin * Double(AV_TIME_BASE)).rounded()), mediad_time_base_q(), stream.pointee.time_base)
        track = try OutputTrack(output: output, parameters: parameters, timeBase: stream.pointee.time_base)
        if isVideo, format.isISOBaseMedia {
            let rotation = VideoRotation(stream: stream, keep: true)
            if let matrix = rotation.keptMatrix { try rotation.attach(matrix, to: track.stream) }
        }
    }

    /// Whether libav's muxer for `format` takes `codec`, by its codec table and mediad's own list where
    /// that table is missing or wrong.
    private static func carries(_ format: TranscodeJob.Format, _ codec: AVCodecID) -> Bool {
        if let video = TranscodeJob.VideoCodec.allCases.first(where: { $0.codecID == codec }) {
            return format.videoCodecs.contains(video)
        }
        if let audio = TranscodeJob.AudioCodec.allCases.first(where: { $0.codecID == codec }) {
            return format.audioCodecs.contains(audio)
        }
        guard let muxer = av_guess_format(format.muxerName, nil, nil) else { return false }
        return format != .ts && avformat_query_codec(muxer, codec, FF_COMPLIANCE_NORMAL) == 1
    }

    func send(_ packet: Packet) throws {
        if let pts = packet.pts { packet.pts = pts - offset }
        if let dts = packet.dts { packet.dts = dts - offset }
        try track.write(packet)
    }

    func finish() throws {}

    func report() -> TranscodeResult.Track {
        let parameters = track.stream.pointee.codecpar.pointee
        let rate = track.stream.pointee.avg_frame_rate
        return TranscodeResult.Track(
            kind: kind, codec: codec, profile: nil, copied: true, frames: track.packets, duration: track.duration,
            bitrate: track.bitrate, width: kind == "video" ? Int(parameters.width) : nil,
            height: kind == "video" ? Int(parameters.height) : nil,
            frameRate: rate.num > 0 && rate.den > 0 ? "\(rate.num)/\(rate.den)" : nil,
            sampleRate: kind == "audio" ? Int(parameters.sample_rate) : nil,
            channels: kind == "audio" ? Int(parameters.ch_layout.nb_channels) : nil)
    }
}
