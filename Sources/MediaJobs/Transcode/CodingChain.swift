import CFFmpeg
import MediaCore

/// The loop of a re-encoded track: packets into the decoder, its frames into the filter graph's `in`,
/// the frames of `out` into the encoder, its packets into the output track. Shared by the video and the
/// audio transcoder, which build the parts.
final class CodingChain {
    let decoder: Decoder
    let graph: FilterGraph
    let encoder: Encoder
    let track: OutputTrack
    /// Whether the filters reached the end cut, so no more input is needed.
    private(set) var isComplete = false
    /// A decoded frame's nominal duration in the input's time base, for frames that state none; nil when
    /// the filters need no end time (audio, whose frames are as long as their samples).
    private let nominalFrameDuration: Int64?
    /// An encoded packet's duration in the encoder's time base, for packets that state none (audio
    /// encoders always state it): libav 5.1's
    /// video encoders leave it 0, and the ISO muxers then end the track (and its edit list) where the last
    /// packet starts, dropping the last frame.
    private let nominalPacketDuration: Int64
    private let sinkTimeBase: AVRational
    /// When the latest decoded frame ends, in the input's time base: where the filters' input ends.
    private var decodedEnd: Int64?
    private let decoded = Frame()
    private let filtered = Frame()
    private let packet = Packet()

    init(
        decoder: Decoder, graph: FilterGraph, encoder: Encoder, track: OutputTrack, nominalFrameDuration: Int64?,
        nominalPacketDuration: Int64
    ) throws {
        self.decoder = decoder
        self.graph = graph
        self.encoder = encoder
        self.track = track
        self.nominalFrameDuration = nominalFrameDuration
        self.nominalPacketDuration = nominalPacketDuration
        sinkTimeBase = try graph.timeBase(of: "out")
    }

    func send(_ packet: Packet) throws {
        guard !isComplete else { return }
        try decoder.send(packet)
        try drainDecoder()
    }

    /// Flushes decoder, filters (telling them where the last frame ends) and encoder.
    func finish() throws {
        if !isComplete {
            try decoder.send(nil)
            try drainDecoder()
            try graph.finish("in", at: decodedEnd)
            try drainGraph()
        }
        try encoder.send(nil)
        try drainEncoder()
    }

    /// Passes decoded frames on until the decoder wants input or the filters reached the end cut.
    private func drainDecoder() throws {
        while !isComplete, try decoder.receive(into: decoded) {
            decoded.pts = decoded.bestEffortTimestamp
            if let pts = decoded.pts, let nominalFrameDuration {
                let duration = decoded.pointer.pointee.pkt_duration
                decodedEnd = max(decodedEnd ?? pts, pts + (duration > 0 ? duration : nominalFrameDuration))
            }
            try graph.push(decoded, to: "in")
            try drainGraph()
        }
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

extension AVRational {
    /// The duration of one frame at `self` frames per second, in `timeBase`; 1 tick when the rate is unknown.
    func frameDuration(in timeBase: AVRational) -> Int64 {
        num > 0 && den > 0 ? max(1, av_rescale_q(1, av_inv_q(self), timeBase)) : 1
    }
}
