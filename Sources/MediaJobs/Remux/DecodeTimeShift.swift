import CFFmpeg
import MediaCore

/// Lowers the decode times of a video track whose frames the input shows before it decodes them.
///
/// QuickTime files from Apple devices (iPhone HEVC and Dolby Vision recordings) store B-frame composition
/// offsets as negative `ctts` values and rely on the `cslg` box for the decode-time shift that makes them
/// valid. libav 5.1 ignores `cslg` and derives that shift only from `ctts` entries it trusts, so such a
/// track demuxes with packets whose presentation time is earlier than their decode time, which every ISO
/// and Matroska muxer refuses (`pts < dts`). The ffmpeg CLI rewrites those timestamps by a guess.
///
/// Here the first `lookahead` packets of each video track are held, the largest `dts - pts` among them
/// becomes the track's shift, and every decode time of the track is lowered by it: presentation times,
/// and so what is shown when, stay as they are. Should a later packet need more, its decode time is set
/// to its presentation time when that keeps decode order; otherwise the input is refused.
struct DecodeTimeShift {
    /// How many packets of a track are looked at before its shift is fixed: more than any reorder depth.
    static let lookahead = 48

    private var held: [Int: [Packet]] = [:]
    private var shifts: [Int: Int64] = [:]
    private var lastDecodeTime: [Int: Int64] = [:]
    /// Tracks whose decode times were lowered, with the amount in their time base.
    private(set) var shifted: [Int: Int64] = [:]

    /// The packets of track `index` ready to be written once `packet` (which is copied) is taken in.
    mutating func admit(_ packet: Packet, track index: Int) throws -> [Packet] {
        if let shift = shifts[index] { return [try lowered(packet, by: shift, track: index)] }
        held[index, default: []].append(try packet.clone())
        guard held[index]!.count >= Self.lookahead else { return [] }
        return try release(track: index)
    }

    /// Every packet still held, track by track, at the end of the input.
    mutating func drain() throws -> [(track: Int, packet: Packet)] {
        var ready: [(track: Int, packet: Packet)] = []
        for index in held.keys.sorted() {
            ready += try release(track: index).map { (index, $0) }
        }
        return ready
    }

    private mutating func release(track index: Int) throws -> [Packet] {
        let packets = held.removeValue(forKey: index) ?? []
        let shift =
            packets.compactMap { packet -> Int64? in
                guard let pts = packet.pts, let dts = packet.dts, dts > pts else { return nil }
                let (gap, overflow) = dts.subtractingReportingOverflow(pts)
                return overflow ? nil : gap
            }.max() ?? 0
        shifts[index] = shift
        if shift > 0 { shifted[index] = shift }
        return try packets.map { try lowered($0, by: shift, track: index) }
    }

    private mutating func lowered(_ packet: Packet, by shift: Int64, track index: Int) throws -> Packet {
        guard let dts = packet.dts else { return packet }
        let (lowered, overflow) = dts.subtractingReportingOverflow(shift)
        var decodeTime = overflow ? dts : lowered
        if let pts = packet.pts, pts < decodeTime {
            guard lastDecodeTime[index].map({ pts > $0 }) ?? true else {
                throw MediaError(
                    .invalidInput,
                    "track \(index): a frame is shown (pts \(pts)) before frames decoded ahead of it, "
                        + "so no valid decode order exists")
            }
            decodeTime = pts
        }
        packet.dts = decodeTime
        lastDecodeTime[index] = decodeTime
        return packet
    }
}
