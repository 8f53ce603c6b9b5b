import CFFmpeg
import MediaCore

/// Decodes the frames of one video track near chosen points without decoding the whole file: for each
/// point it seeks to the keyframe before it, unless reading on from where it is gets there sooner, and
/// decodes from there.
final class FrameSeeker {
    let file: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let packet = Packet()
    /// The decode time of the last packet read, in the stream's time base; nil right after a seek.
    private var readPosition: Int64?
    private var draining = false
    /// Seeks made and frames decoded so far, for the result's account of the work done.
    private(set) var seeks = 0
    private(set) var framesDecoded = 0

    init(file: InputFile, stream: UnsafeMutablePointer<AVStream>) throws {
        self.file = file
        self.stream = stream
        decoder = try Decoder(stream: stream, of: file)
    }

    /// The stream's time of its first frame, which points are counted from.
    var origin: Int64 {
        stream.pointee.start_time == mediad_nopts_value() ? 0 : stream.pointee.start_time
    }

    /// Positions the decoder so that the next frames lead up to `target` (stream time base): seeks to the
    /// keyframe before it when that keyframe lies ahead of what was read already, or when the target is
    /// behind the frames decoded last.
    ///
    /// Container indexes are keyed by decode time, which runs behind presentation by the stream's reorder
    /// delay; the keyframe is looked up that many frames (and one more) before the target, so that it is
    /// shown at or before the target, never just after it.
    func approach(_ target: Int64, lastFrame: Int64?) throws {
        let keyframeTime = target - reorderMargin
        if let lastFrame, lastFrame < target, let readPosition {
            let index = av_index_search_timestamp(stream, keyframeTime, AVSEEK_FLAG_BACKWARD)
            let keyframe = index >= 0 ? avformat_index_get_entry(stream, index)?.pointee.timestamp : nil
            if keyframe.map({ $0 <= readPosition }) ?? true { return }
        }
        let result = avformat_seek_file(
            file.context, Int32(stream.pointee.index), Int64.min, keyframeTime, keyframeTime, 0)
        if result < 0 {
            // A stream that cannot seek by time (raw H.264 without an index yet) is read from the start.
            try LibavError.check(
                avformat_seek_file(file.context, Int32(stream.pointee.index), Int64.min, origin, origin, 0),
                "seeking to the start of the video", code: .invalidInput)
        }
        avcodec_flush_buffers(decoder.context)
        readPosition = nil
        draining = false
        seeks += 1
    }

    /// The reorder delay plus one frame, in the stream's time base (25 fps assumed when no rate is known).
    private var reorderMargin: Int64 {
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : AVRational(num: 25, den: 1)
        let frame = av_rescale_q(1, AVRational(num: rate.den, den: rate.num), stream.pointee.time_base)
        return frame * Int64(stream.pointee.codecpar.pointee.video_delay + 1)
    }

    /// The next decoded frame, into `frame`; false at the end of the track. Damaged packets are skipped.
    func next(into frame: Frame) throws -> Bool {
        let index = Int(stream.pointee.index)
        while true {
            do {
                if try decoder.receive(into: frame) {
                    framesDecoded += 1
                    return true
                }
            } catch let error as MediaError where error.code == .invalidInput {
                continue
            }
            if draining { return false }
            if try file.read(into: packet) {
                guard packet.streamIndex == index else { continue }
                readPosition = packet.dts ?? packet.pts ?? readPosition
                do {
                    try decoder.send(packet)
                } catch let error as MediaError where error.code == .invalidInput {
                    continue
                }
            } else {
                try decoder.send(nil)
                draining = true
            }
        }
    }
}
