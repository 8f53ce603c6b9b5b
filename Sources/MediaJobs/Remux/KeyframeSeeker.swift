import CFFmpeg
import MediaCore

/// Finds the last keyframe of one track at or before a time, and leaves the input positioned to read it.
struct KeyframeSeeker {
    let input: InputFile
    let anchor: Int

    /// Seeks so that reading resumes at or before the last anchor keyframe whose pts ≤ `seconds`, and
    /// returns that keyframe's pts in the anchor's time base.
    ///
    /// Container indexes are keyed by decode time, so a first seek can land on a keyframe shown just
    /// after `seconds`; the seeker then backs off further and tries again, down to the file's start.
    func positionAtKeyframe(before seconds: Double) throws -> Int64 {
        let stream = input.stream(anchor)
        let target = try TrimWindow.ticks(seconds, in: stream.pointee.time_base, rounding: .down)
        let packet = Packet()
        for backoff in [0.0, 1, 5, 30, .infinity] {
            let seekSeconds = max(0, seconds - backoff)
            try seek(to: backoff.isInfinite ? nil : seekSeconds)
            var lastKeyframe: Int64? = nil
            var firstKeyframe: Int64? = nil
            while try input.read(into: packet) {
                guard packet.streamIndex == anchor, packet.isKeyframe, let pts = packet.pts ?? packet.dts else {
                    continue
                }
                if firstKeyframe == nil { firstKeyframe = pts }
                if pts > target { break }
                lastKeyframe = pts
            }
            if let found = lastKeyframe ?? (backoff.isInfinite ? firstKeyframe : nil) {
                try seek(to: backoff.isInfinite ? nil : seekSeconds)
                return found
            }
        }
        throw MediaError(.emptySelection, "the input has no keyframe to start from at or before \(seconds) s")
    }

    private func seek(to seconds: Double?) throws {
        let context = input.context
        let start = context.pointee.start_time == mediad_nopts_value() ? 0 : context.pointee.start_time
        // Saturating: a hostile file can state a start time near Int64.max.
        let timestamp =
            seconds.map {
                let (sum, overflow) = start.addingReportingOverflow(Int64($0 * Double(AV_TIME_BASE)))
                return overflow ? (start < 0 ? Int64.min : Int64.max) : sum
            } ?? Int64.min
        let result = avformat_seek_file(context, -1, Int64.min, timestamp, timestamp, 0)
        if result < 0 && seconds != nil {
            throw LibavError.error(result, "cannot seek to \(seconds!) s", code: .emptySelection)
        }
        if result < 0 {
            try LibavError.check(
                avformat_seek_file(context, -1, Int64.min, start, start, 0), "cannot seek to the start")
        }
    }
}
