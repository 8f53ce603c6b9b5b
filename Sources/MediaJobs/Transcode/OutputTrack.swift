import CFFmpeg
import MediaCore

/// One stream of the transcode's output: writes the packets of one encoder (or of a copied input track)
/// into it, rescaled to the stream's time base, and counts what it wrote for the result.
final class OutputTrack {
    let output: OutputFile
    let index: Int
    /// The time base the packets handed to `write` are timed in.
    let sourceTimeBase: AVRational
    private(set) var packets = 0
    private(set) var bytes = 0
    private var firstTime: Int64?
    private var endTime: Int64?

    init(output: OutputFile, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws {
        self.output = output
        let stream = try output.addStream(copying: parameters, timeBase: timeBase)
        index = Int(stream.pointee.index)
        sourceTimeBase = timeBase
    }

    /// The stream in the output file; its time base is the muxer's choice once the header is written.
    var stream: UnsafeMutablePointer<AVStream> { output.stream(index) }

    /// Writes `packet`, timed in `sourceTimeBase`.
    func write(_ packet: Packet) throws {
        packet.streamIndex = index
        packet.rescale(from: sourceTimeBase, to: stream.pointee.time_base)
        packets += 1
        bytes += packet.size
        if let time = packet.pts ?? packet.dts {
            firstTime = min(firstTime ?? time, time)
            endTime = max(endTime ?? time, time + packet.duration)
        }
        try output.write(packet)
    }

    /// Seconds from the earliest presentation time to the end of the latest packet.
    var duration: Double {
        guard let firstTime, let endTime else { return 0 }
        return Double(endTime - firstTime) * av_q2d(stream.pointee.time_base)
    }

    /// The end of the latest packet written, in seconds of the output's timeline.
    var reachedSeconds: Double { endTime.map { Double($0) * av_q2d(stream.pointee.time_base) } ?? 0 }

    /// Bits per second over `duration`.
    var bitrate: Int { duration > 0 ? Int((Double(bytes * 8) / duration).rounded()) : 0 }
}
