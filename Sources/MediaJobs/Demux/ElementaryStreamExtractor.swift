import CFFmpeg
import MediaCore

/// Writes one MP4 track as an elementary stream file (ADTS AAC or Annex-B H.264/H.265).
final class ElementaryStreamExtractor {
    /// The elementary stream kinds demux writes.
    enum Kind {
        case aac, h264, hevc

        /// The kind for a track, or nil with `skipReason` set when demux does not extract it.
        init?(stream: UnsafeMutablePointer<AVStream>, skipReason: inout String?) {
            let parameters = stream.pointee.codecpar.pointee
            let codec = String(cString: avcodec_get_name(parameters.codec_id))
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                skipReason = "cover art is not extracted"
                return nil
            }
            switch (parameters.codec_type, parameters.codec_id) {
            case (AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_AAC): self = .aac
            case (AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_H264): self = .h264
            case (AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_HEVC): self = .hevc
            case (AVMEDIA_TYPE_AUDIO, _):
                skipReason = "\(codec) audio is not extracted: demux writes AAC only (as ADTS)"
                return nil
            case (AVMEDIA_TYPE_VIDEO, _):
                skipReason = "\(codec) video is not extracted: demux writes H.264 and H.265 only (as Annex-B)"
                return nil
            default:
                skipReason = "\(MediaInfo.Track.kindName(parameters.codec_type)) tracks are not extracted"
                return nil
            }
        }

        var baseName: String { self == .aac ? "audio" : "video" }
        var fileExtension: String {
            switch self {
            case .aac: "aac"
            case .h264: "h264"
            case .hevc: "h265"
            }
        }
        var muxer: String {
            switch self {
            case .aac: "adts"
            case .h264: "h264"
            case .hevc: "hevc"
            }
        }
        var annexBFilter: String? {
            switch self {
            case .aac: nil
            case .h264: "h264_mp4toannexb"
            case .hevc: "hevc_mp4toannexb"
            }
        }
    }

    let kind: Kind
    let path: String
    private let output: OutputFile
    private let filter: BitstreamFilter?
    private let inputTimeBase: AVRational
    /// The track's parameter sets in Annex-B form, put in front of any keyframe that lacks them.
    private let parameterSets: [UInt8]
    private let filtered = Packet()
    private(set) var packetCount = 0

    init(kind: Kind, stream: UnsafeMutablePointer<AVStream>, path: String) throws {
        self.kind = kind
        self.path = path
        inputTimeBase = stream.pointee.time_base
        let parameters = stream.pointee.codecpar!
        let lengthPrefixed = parameters.pointee.extradata_size > 0 && parameters.pointee.extradata[0] == 1
        if let name = kind.annexBFilter, lengthPrefixed {
            filter = try BitstreamFilter(name: name, parameters: parameters, timeBase: stream.pointee.time_base)
        } else {
            filter = nil
        }
        let described = filter?.outputParameters ?? parameters
        let extradata =
            described.pointee.extradata.map {
                Array(UnsafeBufferPointer(start: $0, count: Int(described.pointee.extradata_size)))
            } ?? []
        parameterSets =
            kind == .aac || !(extradata.starts(with: [0, 0, 1]) || extradata.starts(with: [0, 0, 0, 1]))
            ? [] : extradata
        output = try OutputFile(path: path, muxer: kind.muxer)
        try output.addStream(copying: described, timeBase: filter?.outputTimeBase ?? inputTimeBase)
        try output.writeHeader()
    }

    func write(_ packet: Packet) throws {
        packetCount += 1
        guard let filter else {
            try emit(packet, from: inputTimeBase)
            return
        }
        try filter.send(packet)
        while try filter.receive(into: filtered) { try emit(filtered, from: filter.outputTimeBase) }
    }

    func finish() throws {
        if let filter {
            try filter.send(nil)
            while try filter.receive(into: filtered) { try emit(filtered, from: filter.outputTimeBase) }
        }
        try output.finish()
    }

    private func emit(_ packet: Packet, from timeBase: AVRational) throws {
        if packet.isKeyframe, !parameterSets.isEmpty, !carriesParameterSets(packet) {
            try packet.setData(parameterSets + Array(packet.data))
        }
        packet.rescale(from: timeBase, to: output.stream(0).pointee.time_base)
        packet.streamIndex = 0
        packet.pointer.pointee.pos = -1
        try output.write(packet)
    }

    /// Whether an Annex-B access unit already has an SPS (and, for H.265, a VPS).
    private func carriesParameterSets(_ packet: Packet) -> Bool {
        let data = packet.data
        let types = AnnexB.nalUnits(in: data).map { range -> Int in
            kind == .h264 ? Int(data[range.lowerBound] & 0x1F) : Int(data[range.lowerBound] >> 1) & 0x3F
        }
        return kind == .h264 ? types.contains(7) : types.contains(32) && types.contains(33)
    }
}
