import Foundation
import MediaCore

/// What libav 5.1's muxers silently get wrong for some outputs and mediad cannot mend, worded as job
/// warnings so nothing changes without the user being told.
enum ContainerLimits {
    /// The MPEG-TS muxer carries the clock (PCR) on the video track only, and without a constant mux rate
    /// only while that track has packets: audio that goes on after the video ends has no clock, and
    /// players that pace by the PCR stall or drop it.
    static func stoppedClock(format: ContainerFormat, videoEnd: Double?, audioEnd: Double?) -> String? {
        guard format == .ts, let videoEnd, let audioEnd, audioEnd - videoEnd > 0.5 else { return nil }
        let gap = String(format: "%.2f", audioEnd - videoEnd)
        return "MPEG-TS: the video ends \(gap) s before the audio; libav 5.1 sends the clock (PCR) with the video "
            + "only, so the last \(gap) s of audio carry no PCR and some players stall there"
    }

    /// The ASF muxer stores each packet's decoding time where ASF keeps the presentation time, so frames
    /// that are shown out of decoding order (B-frames) lose their order: every reader, libav included,
    /// then presents them as pts = dts.
    static func lostPresentationOrder(format: ContainerFormat, track: String) -> String? {
        guard format == .asf else { return nil }
        return "\(track): ASF as libav 5.1 writes it keeps decoding times only; its B-frames will be "
            + "presented in decoding order (choose mp4, mkv or ts to keep their order)"
    }

    /// libav 5.1's ASF reader gives no presentation times, so an ASF input's reordered frames come out in
    /// decoding order whatever the target.
    static func unorderedInput(container: InputContainer, track: Int, reorders: Bool) -> String? {
        guard container == .asf, reorders else { return nil }
        return "track \(track): libav 5.1 reads no presentation times from ASF; this track's B-frames are "
            + "written in decoding order (pts = dts)"
    }
}
