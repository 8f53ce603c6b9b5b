import CFFmpeg
import MediaCore

/// Decides packet by packet what a remux with `start`/`end` keeps, cutting on keyframes of one anchor track.
///
/// The anchor is the first kept video track (else the first audio track, where every packet is a
/// keyframe). The output begins at the last anchor keyframe at or before `start` and ends just before
/// the first anchor keyframe at or after `end`, so every kept frame decodes exactly as in the input.
/// Other tracks keep the packets whose timestamps fall inside that window. Packets of other tracks that
/// pass `end` before the anchor's closing keyframe is known are held back until it is.
final class TrimWindow {
    let anchorIndex: Int
    let anchorTimeBase: AVRational
    /// The cut start in the anchor's time base, or nil when the output starts with the input.
    let cutStart: Int64?
    /// Without a cut start, where the kept tracks' earliest presentation time lies (anchor time base),
    /// when it lies after zero: an MPEG-TS capture's clock, an input whose tracks all open with an empty
    /// edit. The output starts at zero all the same, as the ffmpeg CLI's does without `-copyts`.
    let origin: Int64?
    private let requestedEnd: Int64?
    private(set) var cutEnd: Int64?
    private var anchorStarted: Bool
    private var held: [Packet] = []
    private var finishedTracks: Set<Int> = []

    init(anchorIndex: Int, anchorTimeBase: AVRational, cutStart: Int64?, origin: Int64? = nil, end: Double?) throws {
        self.anchorIndex = anchorIndex
        self.anchorTimeBase = anchorTimeBase
        self.cutStart = cutStart
        self.origin = cutStart == nil ? origin.flatMap { $0 > 0 ? $0 : nil } : nil
        self.requestedEnd = try end.map { try Self.ticks($0, in: anchorTimeBase, rounding: .up) }
        anchorStarted = cutStart == nil
    }

    /// `seconds` in `timeBase`, refused rather than trapping when the input's time base makes it
    /// unrepresentable (a zero numerator, or a time beyond Int64).
    static func ticks(_ seconds: Double, in timeBase: AVRational, rounding: FloatingPointRoundingRule) throws -> Int64 {
        let ticks = (seconds / av_q2d(timeBase)).rounded(rounding)
        guard let exact = Int64(exactly: ticks) else {
            throw MediaError(
                .invalidInput,
                "\(seconds) s cannot be expressed in the input's time base \(timeBase.num)/\(timeBase.den)")
        }
        return exact
    }

    /// What to do with a packet read from the input.
    enum Decision {
        case write
        case drop
        /// Keep it aside until the end cut is known (`release` hands it back).
        case hold
    }

    /// Judges one packet of a kept track whose time base is `timeBase`.
    func judge(_ packet: Packet, timeBase: AVRational) -> Decision {
        guard let time = packet.pts ?? packet.dts else { return anchorStarted ? .write : .drop }
        if packet.streamIndex == anchorIndex {
            if cutEnd != nil { return .drop }
            if !anchorStarted {
                guard packet.isKeyframe, let cutStart, time >= cutStart else { return .drop }
                anchorStarted = true
            }
            if let cutStart, time < cutStart { return .drop }
            if let requestedEnd, packet.isKeyframe, time >= requestedEnd {
                cutEnd = time
                return .drop
            }
            return .write
        }
        if let cutStart, av_compare_ts(time, timeBase, cutStart, anchorTimeBase) < 0 { return .drop }
        if let cutEnd {
            if av_compare_ts(time, timeBase, cutEnd, anchorTimeBase) >= 0 {
                finishedTracks.insert(packet.streamIndex)
                return .drop
            }
            return .write
        }
        if let requestedEnd, av_compare_ts(time, timeBase, requestedEnd, anchorTimeBase) >= 0 { return .hold }
        return .write
    }

    /// Whether the output is to end before the input does.
    var cutsEnd: Bool { requestedEnd != nil }

    func hold(_ packet: Packet) throws { held.append(try packet.clone()) }

    /// Held packets that now fall inside the window (all of them once the input has ended).
    func release(timeBases: [Int: AVRational], atEndOfInput: Bool) -> [Packet] {
        guard cutEnd != nil || atEndOfInput else { return [] }
        let ready = held.filter { packet in
            guard let cutEnd, let time = packet.pts ?? packet.dts, let timeBase = timeBases[packet.streamIndex] else {
                return true
            }
            return av_compare_ts(time, timeBase, cutEnd, anchorTimeBase) < 0
        }
        held.removeAll()
        return ready
    }

    /// True once the anchor has closed and every other track has passed the end cut.
    func isComplete(otherTracks: Int) -> Bool {
        cutEnd != nil && finishedTracks.count >= otherTracks
    }

    /// How far to shift a track's timestamps so the output starts at zero: to the cut start, else to the
    /// origin (rounded down, so that no track's first time goes below zero).
    func shift(for timeBase: AVRational) -> Int64 {
        if let cutStart { return av_rescale_q(cutStart, anchorTimeBase, timeBase) }
        guard let origin else { return 0 }
        return av_rescale_q_rnd(origin, anchorTimeBase, timeBase, AV_ROUND_DOWN)
    }

    /// Where the output's zero lies on the input's timeline, in seconds.
    var outputZero: Double { seconds(cutStart ?? origin) ?? 0 }

    func seconds(_ value: Int64?) -> Double? { value.map { Double($0) * av_q2d(anchorTimeBase) } }
}
