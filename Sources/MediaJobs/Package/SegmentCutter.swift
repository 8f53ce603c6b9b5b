import CFFmpeg
import MediaCore

/// Decides where segments end and sends every packet to its track's segmenter.
///
/// The anchor track (the video, else the first audio track) ends a segment at its first keyframe at least
/// `target` seconds after the segment's start, so a segment lasts at most the target plus one GOP. The
/// other tracks end theirs at the same time: a packet of theirs presented before the anchor's cut goes into
/// the segment before it. One they present later than the earliest possible cut waits in a queue until the
/// anchor decides where the cut falls, so the input is read once.
struct SegmentCutter {
    private let segmenters: [Int: TrackSegmenter]
    private let anchor: Int
    private let target: Double
    private var segmentStart: Double?
    private var waiting: [Int: [(packet: Packet, time: Double)]] = [:]

    /// Half a millisecond: a keyframe exactly one target after the segment's start ends it, whatever the
    /// rounding of two time bases' seconds.
    private static let tolerance = 0.0005

    init(segmenters: [Int: TrackSegmenter], anchor: Int, target: Double) {
        self.segmenters = segmenters
        self.anchor = anchor
        self.target = target
    }

    /// Routes one packet of track `index` whose presentation time is `time` seconds; true when it ended
    /// every track's segment (each segmenter wrote its file) and starts the next one.
    @discardableResult
    mutating func add(_ packet: Packet, track index: Int, time: Double) throws -> Bool {
        guard let segmenter = segmenters[index] else { return false }
        guard index == anchor else {
            if let start = segmentStart, time < start + target, waiting[index, default: []].isEmpty {
                try segmenter.write(packet)
            } else {
                waiting[index, default: []].append((try packet.clone(), time))
            }
            return false
        }
        var cutHere = false
        if let start = segmentStart, packet.isKeyframe, time - start + Self.tolerance >= target {
            try cut(at: time)
            cutHere = true
        } else if segmentStart == nil {
            segmentStart = time
            try release(before: time + target)
        }
        try segmenter.write(packet)
        return cutHere
    }

    /// Ends every track's segment at `time`: what waits before it goes into the segment ending, then the
    /// next segment starts and takes what falls before its own earliest cut.
    private mutating func cut(at time: Double) throws {
        try release(before: time)
        for segmenter in segmenters.values { try segmenter.closeSegment() }
        segmentStart = time
        try release(before: time + target)
    }

    /// Writes the waiting packets presented before `limit`, in each track's order.
    private mutating func release(before limit: Double) throws {
        for (index, queue) in waiting {
            let ready = queue.prefix { $0.time < limit }
            for item in ready { try segmenters[index]!.write(item.packet) }
            waiting[index] = Array(queue.dropFirst(ready.count))
        }
    }

    /// Writes everything still waiting into the last segment and closes every track.
    mutating func finish() throws {
        try release(before: .infinity)
        for segmenter in segmenters.values { try segmenter.finish() }
    }
}
