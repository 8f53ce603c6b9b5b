import CFFmpeg

/// A stream of packets with the parameters that describe them, whatever reads them: a libav demuxer
/// or one of mediad's own elementary-stream readers.
public protocol PacketSource: AnyObject {
    /// Codec, dimensions or sample rate, extradata: what a muxer needs to describe the stream.
    var codecParameters: UnsafePointer<AVCodecParameters> { get }
    /// The unit of the timestamps `read(into:)` sets.
    var timeBase: AVRational { get }
    /// Bytes of input consumed so far, for progress.
    var bytesRead: Int64 { get }
    /// Bytes this source will consume in total.
    var totalBytes: Int64 { get }
    /// Bits per second over the whole stream, for the containers that state it (FLV's `videodatarate` and
    /// `audiodatarate`, the ISO `btrt` and `esds` boxes); libav leaves it to whoever sets the parameters.
    var averageBitRate: Int64 { get }
    /// Fills `packet` with the next packet (stream index 0, pts, dts and duration set); false at the end.
    func read(into packet: Packet) throws -> Bool
}
