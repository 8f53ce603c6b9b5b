import Foundation
import MediaCore

/// The points in time a thumbnails job takes pictures at, from its options and the input's duration.
struct ThumbnailSchedule: Equatable {
    /// Seconds, ascending, each before the end of the video.
    var points: [Double]
    /// Requested points at or past the end, which get no picture.
    var pastTheEnd: [Double]

    /// `times` as given (sorted, repeats dropped), `every` from 0 up to the end, or `count` at the middles
    /// of equal parts of the duration. Without a known duration, `every` and `count` cannot be placed; an
    /// `every` that places more than `maximumCount` points is `invalid_option` rather than cut short.
    init(_ options: ThumbnailsJob.Options, duration: Double?) throws {
        var requested: [Double]
        if let times = options.times {
            requested = Array(Set(times)).sorted()
        } else {
            guard let duration, duration > 0 else {
                throw MediaError(
                    .invalidInput,
                    "the input states no duration, so every and count cannot be placed; give times instead")
            }
            if let every = options.every {
                let steps = try Self.pointCount(every: every, duration: duration)
                requested = (0..<steps).map { Double($0) * every }
            } else {
                let count = options.count ?? 1
                requested = (0..<count).map { duration * (Double($0) + 0.5) / Double(count) }
            }
        }
        guard let duration else {
            points = requested
            pastTheEnd = []
            return
        }
        points = requested.filter { $0 < duration }
        pastTheEnd = requested.filter { $0 >= duration }
    }

    /// How many points `every` places over a video of `duration` seconds (one at 0, then one every
    /// `every` seconds before the end). `invalid_option` naming the maximum, the count asked for and the
    /// smallest `every` that fits, when that is over `ThumbnailsJob.Options.maximumCount`.
    static func pointCount(every: Double, duration: Double) throws -> Int {
        let maximum = ThumbnailsJob.Options.maximumCount
        let quotient = (duration / every).rounded(.up)
        var asked = quotient < 1e15 ? String(Int(quotient)) : String(quotient)
        if quotient <= Double(maximum) + 1 {
            // The quotient can land a hair off a whole number (0.25 / 0.001): count the points as they are
            // placed, `k × every` before the end.
            var count = max(1, Int(quotient))
            while count > 1 && Double(count - 1) * every >= duration { count -= 1 }
            while Double(count) * every < duration { count += 1 }
            guard count > maximum else { return count }
            asked = String(count)
        }
        let least = (duration / Double(maximum) * 1000).rounded(.up) / 1000
        throw MediaError(
            .invalidOption,
            "every=\(every) over the \(String(format: "%.3f", duration)) s video asks for \(asked) pictures, over "
                + "the maximum of \(maximum) a job takes: give every of at least \(String(format: "%.3f", least)) "
                + "s, or count")
    }

    /// The video's duration as a probe reports it: the first video track's (not cover art), else the
    /// file's; nil when neither is stated. It is what the job reads when it opens the input.
    static func duration(of info: MediaInfo) -> Double? {
        if let seconds = info.firstPictureTrack?.duration, seconds > 0 { return seconds }
        return info.duration
    }
}
