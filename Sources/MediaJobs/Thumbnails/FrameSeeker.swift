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
    /// The point being approached, which `retreat()` steps back from.
    private var target: Int64 = 0
    /// Whether frames are dropped until a keyframe: after a seek, which in some containers (MPEG-TS) lands
    /// on any packet, not on a keyframe.
    private var awaitingKeyframe = false
    private var draining = false
    /// Frames decoded since the last seek, and seeks back made for the current point.
    private(set) var framesSinceSeek = 0
    private var retreats = 0
    /// The most times one point steps back a keyframe before its first frame is taken as it is.
    static let maximumRetreats = 3
    /// Seeks made and frames decoded so far, for the result's account of the work done.
    private(set) var seeks = 0
    private(set) var framesDecoded = 0

    init(file: InputFile, stream: UnsafeMutablePointer<AVStream>) throws {
        self.file = file
        self.stream = stream
        decoder = try Decoder(stream: stream, of: file)
    }

    /// Whether the container indexes every keyframe up front (MP4's sample tables, Matroska's cues);
    /// libav's index of the others holds only what reading and seeking have passed.
    private var hasWholeIndex: Bool { file.container == .mp4 || file.container == .matroska }

    /// The stream's time of its first frame, which points are counted from.
    var origin: Int64 {
        stream.pointee.start_time == mediad_nopts_value() ? 0 : stream.pointee.start_time
    }

    /// Positions the decoder so that the next frames lead up to `target` (stream time base): seeks to the
    /// keyframe before it when the container's index shows that keyframe ahead of what was read already, or
    /// when the target is behind the frames decoded last.
    ///
    /// Container indexes are keyed by decode time, which can run behind presentation (B-frames, edit
    /// lists), and some containers seek to a position rather than a keyframe, so the first keyframe after
    /// the seek can be shown just after the target: `retreat()` then seeks further back.
    func approach(_ target: Int64, lastFrame: Int64?) throws {
        retreats = 0
        self.target = target
        if let lastFrame, lastFrame < target, let readPosition {
            if hasWholeIndex {
                let index = av_index_search_timestamp(stream, target, AVSEEK_FLAG_BACKWARD)
                let keyframe = index >= 0 ? avformat_index_get_entry(stream, index)?.pointee.timestamp : nil
                if keyframe.map({ $0 <= readPosition }) ?? true { return }
            } else {
                // Without a whole index (MPEG-TS, raw streams) a seek is a search by byte position that
                // reads more than decoding on to a point ahead does: only going back seeks.
                return
            }
        }
        try seek(to: target)
    }

    /// Seeks 1, then 2, then 4 seconds before the target, when the first frame after the last seek is
    /// shown after it; false after `maximumRetreats`. (A stream's first keyframe can be decoded before its
    /// start time, so a seek to the start itself can land past it; the steps go on below it.)
    func retreat() throws -> Bool {
        guard retreats < Self.maximumRetreats else { return false }
        let step = av_rescale_q(Int64(1) << retreats, AVRational(num: 1, den: 1), stream.pointee.time_base)
        retreats += 1
        try seek(to: target - step)
        return true
    }

    private func seek(to time: Int64) throws {
        let result = avformat_seek_file(file.context, Int32(stream.pointee.index), Int64.min, time, time, 0)
        if result < 0 {
            // A stream that cannot seek by time (raw H.264 without an index yet) is read from the start.
            try LibavError.check(
                avformat_seek_file(file.context, Int32(stream.pointee.index), Int64.min, origin, origin, 0),
                "seeking to the start of the video", code: .invalidInput)
        }
        avcodec_flush_buffers(decoder.context)
        readPosition = nil
        awaitingKeyframe = true
        framesSinceSeek = 0
        draining = false
        seeks += 1
    }

    /// The next decoded frame, into `frame`; false at the end of the track. Damaged packets are skipped.
    func next(into frame: Frame) throws -> Bool {
        let index = Int(stream.pointee.index)
        while true {
            do {
                if try decoder.receive(into: frame) {
                    framesDecoded += 1
                    if awaitingKeyframe && frame.pointer.pointee.key_frame == 0 { continue }
                    awaitingKeyframe = false
                    framesSinceSeek += 1
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
