import CFFmpeg
import MediaCore

/// Puts every kept track on one timeline starting at zero and gives each packet a duration.
///
/// The origin is the earliest decode time among the tracks' first packets (read ahead until each track has
/// shown one), so decode times are never negative and the tracks keep their offsets to each other. A packet
/// without a duration (some demuxers give none) is held until the next one of its track comes and takes
/// the decode-time difference; each track's last packet takes its predecessor's step.
struct PacketTimeline {
    private let timeBases: [Int: AVRational]
    private var originMicroseconds: Int64?
    private var lookahead: [Packet] = []
    private var held: [Int: Packet] = [:]
    private var lastStep: [Int: Int64] = [:]

    /// Packets read ahead before the origin is fixed without some track's first packet: a track that has
    /// none so early starts late, and is placed after the origin as it is.
    private static let lookaheadLimit = 2000

    init(timeBases: [Int: AVRational]) { self.timeBases = timeBases }

    /// Takes a packet read from the input; returns the packets now ready, in order, with shifted times.
    mutating func admit(_ packet: Packet) throws -> [Packet] {
        guard originMicroseconds == nil else { return try place(packet) }
        lookahead.append(try packet.clone())
        let seen = Set(lookahead.map(\.streamIndex))
        guard seen.count == timeBases.count || lookahead.count >= Self.lookaheadLimit else { return [] }
        return try startTimeline()
    }

    /// The packets still held, at the end of the input.
    mutating func drain() throws -> [Packet] {
        var ready = originMicroseconds == nil ? try startTimeline() : []
        for (index, packet) in held.sorted(by: { $0.key < $1.key }) {
            packet.duration = lastStep[index] ?? 0
            ready.append(packet)
        }
        held.removeAll()
        return ready
    }

    /// Seconds from the origin at which `packet` (already placed) is presented.
    func seconds(_ packet: Packet) -> Double {
        Double(packet.pts ?? packet.dts ?? 0) * av_q2d(timeBases[packet.streamIndex]!)
    }

    private mutating func startTimeline() throws -> [Packet] {
        let firsts = lookahead.compactMap { packet in
            (packet.dts ?? packet.pts).map {
                av_rescale_q_rnd($0, timeBases[packet.streamIndex]!, mediad_time_base_q(), AV_ROUND_DOWN)
            }
        }
        originMicroseconds = firsts.min() ?? 0
        let pending = lookahead
        lookahead = []
        return try pending.flatMap { try place($0) }
    }

    private mutating func place(_ packet: Packet) throws -> [Packet] {
        let index = packet.streamIndex
        let timeBase = timeBases[index]!
        let shift = av_rescale_q_rnd(originMicroseconds ?? 0, mediad_time_base_q(), timeBase, AV_ROUND_DOWN)
        packet.pts = packet.pts.map { $0 - shift }
        packet.dts = packet.dts.map { $0 - shift }
        var ready: [Packet] = []
        if let previous = held.removeValue(forKey: index) {
            if let start = previous.dts, let next = packet.dts, next > start {
                previous.duration = next - start
                lastStep[index] = next - start
            }
            ready.append(previous)
        }
        if packet.duration > 0 {
            lastStep[index] = packet.duration
            ready.append(try packet.clone())
        } else {
            held[index] = try packet.clone()
        }
        return ready
    }
}
