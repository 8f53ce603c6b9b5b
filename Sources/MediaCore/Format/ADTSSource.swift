import CFFmpeg

/// Raw AAC packets from an ADTS file, read by `ADTSReader`, timed by frame count.
///
/// Every packet is one AAC frame of 1024 samples: pts = dts = index × 1024 in a time base of
/// 1/sample rate. The codec parameters carry the AudioSpecificConfig as extradata, which is what
/// MP4, Matroska, FLV and MPEG-TS muxers need to describe (or re-frame) raw AAC.
public final class ADTSSource: PacketSource {
    public static let samplesPerFrame: Int64 = 1024

    private let reader: ADTSReader
    private let parameters = CodecParameters()
    public private(set) var frameCount: Int64 = 0
    public let averageBitRate: Int64

    /// Opens `path`; with `salvagesCutEnd`, a last frame the end of the file cuts ends the stream (`cutEnd`
    /// says so) instead of failing with `truncated_input`.
    public init(path: String, salvagesCutEnd: Bool = false) throws {
        reader = try ADTSReader(path: path)
        reader.salvagesCutEnd = salvagesCutEnd
        let format = reader.format
        let sampleRate = Int32(format.sampleRate ?? 0)
        let par = parameters.pointer
        par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        par.pointee.codec_id = AV_CODEC_ID_AAC
        par.pointee.profile = Int32(format.objectType - 1)
        par.pointee.sample_rate = sampleRate
        par.pointee.frame_size = Int32(Self.samplesPerFrame)
        let channels = format.channelConfiguration == 7 ? 8 : format.channelConfiguration
        av_channel_layout_default(&par.pointee.ch_layout, Int32(channels))
        try parameters.setExtradata(format.audioSpecificConfig)
        averageBitRate = try Self.averageBitRate(
            path: path, sampleRate: Int64(sampleRate), salvagesCutEnd: salvagesCutEnd)
    }

    /// The `truncated_input` message of the cut that ended the stream early, once read to it.
    public var cutEnd: String? { reader.cutEnd }

    /// Bits per second of AAC payload, from a first pass over every frame (raw ADTS states no rate).
    private static func averageBitRate(path: String, sampleRate: Int64, salvagesCutEnd: Bool) throws -> Int64 {
        let counter = try ADTSReader(path: path)
        counter.salvagesCutEnd = salvagesCutEnd
        var frames: Int64 = 0
        var bytes: Int64 = 0
        while let payload = try counter.next() {
            frames += 1
            bytes += Int64(payload.count)
        }
        guard frames > 0 else { return 0 }
        return bytes * 8 * sampleRate / (frames * samplesPerFrame)
    }

    public var codecParameters: UnsafePointer<AVCodecParameters> { UnsafePointer(parameters.pointer) }
    public var timeBase: AVRational { AVRational(num: 1, den: parameters.pointer.pointee.sample_rate) }
    public var bytesRead: Int64 { reader.position }
    public var totalBytes: Int64 { reader.size }

    public func read(into packet: Packet) throws -> Bool {
        guard let payload = try reader.next() else { return false }
        try packet.setData(payload)
        packet.streamIndex = 0
        packet.pts = frameCount * Self.samplesPerFrame
        packet.dts = packet.pts
        packet.duration = Self.samplesPerFrame
        packet.isKeyframe = true
        frameCount += 1
        return true
    }
}
