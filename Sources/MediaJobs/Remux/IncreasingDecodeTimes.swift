import CFFmpeg
import Foundation
import MediaCore

/// Keeps each track's decode times increasing, as muxers require, and says where it had to move one.
///
/// A stream copy can meet a decode time that does not come after the one before: a Matroska file whose
/// audio was cut and joined has two packets on the same millisecond, and rebuilding sample-exact times
/// from them (`av_rescale_delta`) then puts the second before the first. libav's muxers refuse such a
/// packet and the whole remux failed with their message. Like the ffmpeg CLI, this moves it to one tick
/// past the last decode time and warns: the least move, so the track stays on the input's clock and in
/// sync with the others (placing audio where the frame before it ends instead drifted by a frame at each
/// join, half a second over the bench's 1 GB file). Only times move; no packet's bytes change.
///
/// A time that goes back by `largestMove` or more is not a rounding but a join of two recordings (two
/// MPEG-TS files concatenated with `cat`): moving it, and every one after it, would squeeze the rest
/// of the track into a tick per frame, so that fails the job as `invalid_input` instead.
struct IncreasingDecodeTimes {
    static let largestMove = 0.5

    /// Per track, the last decode time written, in the output's time base.
    private var last: [Int: Int64] = [:]
    /// Per track, how many packets were moved and the largest move, in seconds.
    private var moved: [Int: (count: Int, largest: Double)] = [:]

    /// Moves `packet` (in `timeBase`, the output stream's) to one tick past the last decode time of
    /// `track` when its own is before it, or equal to it when the muxer wants them strictly increasing. A
    /// presentation time is never left before its decode time. Throws `invalid_input` for a time
    /// `largestMove` or more back.
    mutating func admit(_ packet: Packet, track: Int, timeBase: AVRational, allowsEqual: Bool) throws {
        guard let dts = packet.dts else { return }
        if let previous = last[track], allowsEqual ? dts < previous : dts <= previous {
            let back = Double(previous) * av_q2d(timeBase) - Double(dts) * av_q2d(timeBase)
            guard back < Self.largestMove else {
                throw MediaError(
                    .invalidInput,
                    "track \(track): decode times go back by \(String(format: "%.3f", back)) s at "
                        + "\(String(format: "%.3f", Double(dts) * av_q2d(timeBase))) s, as where two recordings were "
                        + "joined; send them one at a time")
            }
            let shift = previous + 1 - dts
            packet.dts = previous + 1
            packet.pts = packet.pts.map { max($0, previous + 1) }
            let noted = moved[track] ?? (0, 0)
            moved[track] = (noted.count + 1, max(noted.largest, Double(shift) * av_q2d(timeBase)))
        }
        last[track] = packet.dts ?? dts
    }

    /// One warning per track that had packets moved, naming it by `codecs` (input index to codec name).
    func warnings(codecs: [Int: String], format: String) -> [String] {
        moved.sorted { $0.key < $1.key }.map { track, noted in
            let packets = noted.count == 1 ? "1 packet" : "\(noted.count) packets"
            return "track \(track) (\(codecs[track] ?? "?")): \(packets) whose decode time did not come after the "
                + "one before \(noted.count == 1 ? "was" : "were") moved forward, by at most "
                + "\(String(format: "%.1f", noted.largest * 1000)) ms, as the \(format) muxer needs increasing decode times; "
                + "no packet's bytes changed"
        }
    }
}
