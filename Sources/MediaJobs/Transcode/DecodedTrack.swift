import CFFmpeg
import MediaCore

/// The frames of a file's first video (not cover art) or audio track, decoded one at a time, for measuring
/// a file or comparing two.
final class DecodedTrack {
    let input: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let packet = Packet()
    private var drained = false

    init(path: String, type: AVMediaType) throws {
        input = try InputFile(path: path, accepting: InputContainer.allCases, policy: .transcoding)
        try input.findStreamInfo()
        guard
            let found = input.streams.first(where: {
                $0.pointee.codecpar.pointee.codec_type == type
                    && $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            })
        else {
            let kind = type == AVMEDIA_TYPE_VIDEO ? "video" : "audio"
            throw MediaError(.missingStream, "\(path) has no \(kind) track to measure")
        }
        stream = found
        decoder = try Decoder(stream: found, of: input, threads: type == AVMEDIA_TYPE_VIDEO ? 0 : 1)
    }

    /// The graph source that takes these frames, under `name`.
    func source(named name: String) -> FilterGraph.Source {
        guard stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
            return .audio(name: name, format: decoder.outputFormat, timeBase: stream.pointee.time_base)
        }
        let context = decoder.context.pointee
        return .video(
            name: name, width: Int(context.width), height: Int(context.height), pixelFormat: context.pix_fmt,
            timeBase: stream.pointee.time_base, sampleAspectRatio: stream.pointee.sample_aspect_ratio,
            frameRate: stream.pointee.avg_frame_rate)
    }

    /// Decodes the next frame into `frame`, timed by its best-effort timestamp; false at the end.
    func next(into frame: Frame) throws -> Bool {
        while true {
            if try decoder.receive(into: frame) {
                frame.pts = frame.bestEffortTimestamp
                return true
            }
            if drained { return false }
            var sent = false
            while try input.read(into: packet) {
                guard packet.streamIndex == Int(stream.pointee.index) else { continue }
                try decoder.send(packet)
                sent = true
                break
            }
            if !sent {
                try decoder.send(nil)
                drained = true
            }
        }
    }
}
