import CFFmpeg
import MediaCore

/// The audio and video tracks of a file a repair wrote by remuxing (kept fragments, an intact input), read
/// back from the file itself: what it holds is what was recovered.
enum WrittenTracks {
    static func measure(_ path: String, context: JobContext) throws -> [RepairResult.Track] {
        let file = try InputFile(path: path, accepting: [.mp4, .matroska], policy: .streamCopy)
        var tracks: [Int: RepairResult.Track] = [:]
        var spans: [Int: (start: Int64, end: Int64)] = [:]
        for stream in file.streams {
            let parameters = stream.pointee.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_VIDEO || parameters.codec_type == AVMEDIA_TYPE_AUDIO else {
                continue
            }
            tracks[Int(stream.pointee.index)] = RepairResult.Track(
                kind: parameters.codec_type == AVMEDIA_TYPE_VIDEO ? "video" : "audio",
                codec: String(cString: avcodec_get_name(parameters.codec_id)), samples: 0, seconds: 0, bytes: 0)
        }
        let packet = Packet()
        var read = 0
        while try file.read(into: packet) {
            read += 1
            if read % 1024 == 0 { try context.checkpoint() }
            let index = packet.streamIndex
            guard tracks[index] != nil, let pts = packet.pts else { continue }
            tracks[index]!.samples += 1
            tracks[index]!.bytes += Int64(packet.size)
            let span = spans[index] ?? (pts, pts)
            spans[index] = (min(span.start, pts), max(span.end, pts + packet.duration))
        }
        for (index, span) in spans {
            tracks[index]!.seconds = Double(span.end - span.start) * av_q2d(file.stream(index).pointee.time_base)
        }
        return tracks.sorted { $0.key < $1.key }.map(\.value)
    }
}
