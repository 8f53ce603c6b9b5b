import CFFmpeg
import MediaCore

/// The loop of a re-encoded track: packets into the decoder, its frames into a `FilteredEncoder`, which
/// filters, encodes and writes them. Shared by the video and the audio transcoder, which build the parts.
final class CodingChain {
    let decoder: Decoder
    let encoding: FilteredEncoder
    /// A decoded frame's nominal duration in the input's time base, for frames that state none; nil when
    /// the filters need no end time (audio, whose frames are as long as their samples).
    private let nominalFrameDuration: Int64?
    /// When the latest decoded frame ends, in the input's time base: where the filters' input ends.
    private var decodedEnd: Int64?
    private let decoded = Frame()

    init(
        decoder: Decoder, graph: FilterGraph, encoder: Encoder, track: OutputTrack, nominalFrameDuration: Int64?,
        nominalPacketDuration: Int64
    ) throws {
        self.decoder = decoder
        self.nominalFrameDuration = nominalFrameDuration
        encoding = try FilteredEncoder(
            graph: graph, encoder: encoder, track: track, nominalPacketDuration: nominalPacketDuration)
    }

    var encoder: Encoder { encoding.encoder }

    var track: OutputTrack { encoding.track }

    /// Whether the filters reached the end cut, so no more input is needed.
    var isComplete: Bool { encoding.isComplete }

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
        }
        try encoding.finish(inputEnd: decodedEnd)
    }

    /// Passes decoded frames on until the decoder wants input or the filters reached the end cut.
    private func drainDecoder() throws {
        while !isComplete, try decoder.receive(into: decoded) {
            decoded.pts = decoded.bestEffortTimestamp
            if let pts = decoded.pts, let nominalFrameDuration {
                let duration = decoded.pointer.pointee.pkt_duration
                decodedEnd = max(decodedEnd ?? pts, pts + (duration > 0 ? duration : nominalFrameDuration))
            }
            try encoding.push(decoded)
        }
    }
}

extension AVRational {
    /// The duration of one frame at `self` frames per second, in `timeBase`; 1 tick when the rate is unknown.
    func frameDuration(in timeBase: AVRational) -> Int64 {
        num > 0 && den > 0 ? max(1, av_rescale_q(1, av_inv_q(self), timeBase)) : 1
    }
}
