import MediaCore
/// The points in time a thumbnails job takes pictures at, from its options and the input's duration.
struct ThumbnailSchedule: Equatable {
    /// Seconds, ascending, each before the end of the video.
    var points: [Double]
    /// Requested points at or past the end, which get no picture.
    var pastTheEnd: [Double]

    /// `times` as given (sorted, repeats dropped), `every` from 0 up to the end, or `count` at the middles
    /// of equal parts of the duration. Without a known duration, `every` and `count` cannot be placed.
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
                let steps = min(Int((duration / every).rounded(.up)), ThumbnailsJob.Options.maximumCount)
                requested = (0..<max(1, steps)).map { Double($0) * every }
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
}
