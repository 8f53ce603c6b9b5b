import CFFmpeg
import MediaCore

/// The encoding half of a re-encoded track: frames into the filter graph's `in`, the frames of `out` into
/// the encoder, its packets into the output track. The transcoder's `CodingChain` puts a decoder in
/// front of it; encode feeds it the camera frames it reads itself.
final class FilteredEncoder {
    let graph: FilterGraph
    let encoder: Encoder
    let track: OutputTrack
    /// Whether the filters reached their end (a transcode's end cut), so no more frames are needed.
    private(set) var isComplete = false
    /// An encoded packet's duration in the encoder's time base, for packets that state none (audio
    /// encoders always state it): libav 5.1's video encoders leave it 0, and the ISO muxers then end the
    /// track (and its edit list) where the last packet starts, dropping the last frame.
    private let nominalPacketDuration: Int64
    private let sinkTimeBase: AVRational
    private let filtered = Frame()
    private let packet = Packet()

    init(graph: FilterGraph, encoder: Encoder, track: OutputTrack, nominalPacketDuration: Int64) throws {
        self.graph = graph
        self.encoder = encoder
        self.track = track
        self.nominalPacketDuration = nominalPacketDuration
        sinkTimeBase = try graph.timeBase(of: "out")
    }

    /// Filters and encodes one frame, timed in the time base of the graph's `in`; ignored once complete.
    func push(_ frame: Frame) throws {
        guard !isComplete else { return }
        try graph.push(frame, to: "in")
        try drainGraph()
    }

    /// Flushes the filters, telling them that the input ends at `inputEnd` (in the time base of `in`),
    /// and the encoder.
    func finish(inputEnd: Int64?) throws {
        if !isComplete {
            try graph.finish("in", at: inputEnd)
            try drainGraph()
        }
        try encoder.send(nil)
        try drainEncoder()
    }

    /// The track's entry in a result, for a video encoder: codec, frames, achieved bit rate, geometry and
    /// rate (the profile is read back from the written file).
    func videoReport() -> TranscodeResult.Track {
        let context = encoder.context.pointee
        let rate = context.framerate
        return TranscodeResult.Track(
            kind: "video", codec: encoder.codecName, profile: nil, copied: false, frames: track.packets,
            duration: track.duration, bitrate: track.bitrate, width: Int(context.width), height: Int(context.height),
            frameRate: rate.num > 0 && rate.den > 0
                ? FrameRate(numerator: Int(rate.num), denominator: Int(rate.den)).description : nil)
    }

    private func drainGraph() throws {
        while true {
            switch try graph.pull(from: "out", into: filtered) {
            case .frame:
                if let pts = filtered.pts { filtered.pts = av_rescale_q(pts, sinkTimeBase, encoder.timeBase) }
                // A decoder's picture types would force keyframes wherever the source had them.
                filtered.pictureType = AV_PICTURE_TYPE_NONE
                try encoder.send(filtered)
                try drainEncoder()
            case .needsInput:
                return
            case .end:
                isComplete = true
                return
            }
        }
    }

    private func drainEncoder() throws {
        while try encoder.receive(into: packet) {
            if packet.duration <= 0 { packet.duration = nominalPacketDuration }
            try track.write(packet)
        }
    }
}
