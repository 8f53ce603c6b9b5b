import CFFmpeg
import MediaCore

/// Keeps each track's decode times increasing, as muxers require, and says where it had to move one.
///
/// A stream copy can meet a decode time that does not come after the one before: a Matroska file whose
/// audio was cut and joined has two packets on the same millisecond, and rebuilding sample-exact times
/// from them (`av_rescale_delta`) then puts the second before the first. libav's muxers refuse such a
/// packet and the whole remux failed with their message. The ffmpeg CLI moves it to one tick after the
/// last and warns; so does this for video. An audio packet goes where the one before it ends instead:
/// audio frames follow each other without gaps, so that is where its samples belong, and the times after
/// it, rebuilt from the sample count, go on from there. Only times move; no packet's bytes change.
///
/// A time that goes back by `largestMove` or more is not a rounding but a join of two recordings (two
/// MPEG-TS files concatenated with `cat`): moving it, and every one after it, would squeeze the rest
/// of the track into a tick per frame, so that fails the job as `invalid_input` instead.
struct IncreasingDecodeTimes {
    static let largestMove = 0.5

    /// Per track, the last decode time written and where that packet ends, in the output's time base.
    private var last: [Int: (dts: Int64, end: Int64)] = [:]
    /// Per track, how many packets were moved and the largest move, in seconds.
    private var moved: [Int: (count: Int, largest: Double)] = [:]

    /// Moves `packet` (in `timeBase`, the output stream's) forward when its decode time is before the last
    /// of `track`, or equal to it when the muxer wants them strictly increasing; returns the move in ticks
    /// of `timeBase`, 0 when the packet stays where it is. An audio packet (`contiguous`) goes to where the
    /// last one ended (`previousEnd` when the caller knows it from the sample count, else by its
    /// duration), others to one tick past the last decode time; a presentation time is never left before
    /// its decode time. Throws `invalid_input` for a time `largestMove` or more before the last.
    mutating func admit(
        _ packet: Packet, track: Int, timeBase: AVRational, contiguous: Bool, previousEnd: Int64? = nil,
        allowsEqual: Bool
    ) throws -> Int64 {
        guard let dts = packet.dts else { return 0 }
        var shift: Int64 = 0
        if let previous = last[track], allowsEqual ? dts < previous.dts : dts <= previous.dts {
            let back = Double(previous.dts) * av_q2d(timeBase) - Double(dts) * av_q2d(timeBase)
            guard back < Self.largestMove else {
                throw MediaError(
                    .invalidInput,
                    "track \(track): decode times go back by \(String(format: "%.3f", back)) s at "
                        + "\(String(format: "%.3f", Double(dts) * av_q2d(timeBase))) s, as where two recordings were "
                        + "joined; send them one at a time")
            }
            let end = previousEnd ?? previous.end
            let target = contiguous && end > previous.dts ? end : previous.dts + 1
            shift = target - dts
            packet.dts = target
            packet.pts = packet.pts.map { max(contiguous ? $0 + shift : $0, target) }
            let seconds = Double(shift) * av_q2d(timeBase)
            let noted = moved[track] ?? (0, 0)
            moved[track] = (noted.count + 1, max(noted.largest, seconds))
        }
        let placed = packet.dts ?? dts
        last[track] = (placed, placed + max(packet.duration, 0))
        return shift
    }

    /// One warning per track that had packets moved, naming it by `codecs` (input index to codec name).
    func warnings(codecs: [Int: String], format: String) -> [String] {
        moved.sorted { $0.key < $1.key }.map { track, noted in
            let packets = noted.count == 1 ? "1 packet" : "\(noted.count) packets"
            return "track \(track) (\(codecs[track] ?? "?")): \(packets) whose decode time did not come after the "
                + "one before \(noted.count == 1 ? "was" : "were") moved forward, by at most "
                + "\(String(format: "%.3f", noted.largest)) s, as the \(format) muxer needs increasing decode times; "
                + "no packet's bytes changed"
        }
    }
}
