import CFFmpeg
import Foundation

/// Reads a headerless PCM file as packets for a `pcm_*` decoder.
///
/// Raw PCM has no header to check, so the one thing that can be validated is the length: it must be a
/// whole number of sample frames (one sample for every channel), else the file is refused with
/// `partial_frame` before anything is decoded. Packets are timed in samples (time base 1/rate).
public final class RawPCMReader {
    public let path: String
    public let sampleFormat: SampleFormat
    public let channels: Int
    /// Bytes of one sample frame: one sample of every channel.
    public let frameBytes: Int
    /// Sample frames in the file.
    public let totalSamples: Int64
    private let file: RawFrameFile
    private var samplesRead: Int64 = 0

    public init(path: String, sampleFormat: SampleFormat, channels: Int) throws {
        self.path = path
        self.sampleFormat = sampleFormat
        self.channels = channels
        let frameBytes = sampleFormat.bytesPerSample * channels
        self.frameBytes = frameBytes
        file = try RawFrameFile(path: path, frameBytes: frameBytes) { size in
            "the raw PCM input is \(size) bytes, not a whole number of \(frameBytes)-byte sample frames "
                + "(\(channels) channel\(channels == 1 ? "" : "s") of \(sampleFormat.rawValue)); "
                + "\(size % Int64(frameBytes)) byte(s) left over"
        }
        totalSamples = file.frames
    }

    deinit { close(file.descriptor) }

    /// Reads up to `samples` sample frames into `packet`; returns false at the end of the file.
    public func read(_ samples: Int, into packet: Packet) throws -> Bool {
        packet.unref()
        let wanted = Int(min(Int64(samples), totalSamples - samplesRead))
        guard wanted > 0 else { return false }
        try LibavError.check(av_new_packet(packet.pointer, Int32(wanted * frameBytes)), "allocating a packet")
        try file.read(
            into: packet.pointer.pointee.data, count: wanted * frameBytes, progress: "\(samplesRead) samples")
        packet.pts = samplesRead
        packet.dts = samplesRead
        packet.duration = Int64(wanted)
        samplesRead += Int64(wanted)
        return true
    }

    /// Sample frames read so far.
    public var position: Int64 { samplesRead }
}
