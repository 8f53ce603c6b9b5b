import MediaCore

/// Presentation and decoding times, in frames, of pictures recovered in decoding order.
///
/// Unlike `PresentationTimeline`, which numbers the pictures it is given one after another, this keeps the
/// place of pictures that were never written: a recording cut off after a reference picture and before
/// the B-pictures shown ahead of it, or damaged in the middle, leaves holes in the picture order counts,
/// and a picture's time comes from its count. Counts step by a stream's usual spacing (2 for x264, 1 for
/// x265): the most common gap between neighbouring counts. A period whose counts do not fall on that
/// spacing, or spread far beyond its pictures, is numbered in order instead.
struct RepairTimeline {
    /// Presentation time of each picture, in decoding order.
    let pts: [Int64]
    /// Decoding time of each picture: increasing, and never after the presentation of it or any later picture.
    let dts: [Int64]

    /// Times `pictures`, whose counts step by `spacing` (the reference's, which saw every picture of its
    /// stream) or else by the most common gap among them.
    init(pictures: [PictureOrder], spacing known: Int64? = nil) {
        let periods = Self.periods(pictures)
        let spacing = known ?? Self.spacing(of: pictures) ?? 1
        var pts = [Int64](repeating: 0, count: pictures.count)
        var base: Int64 = 0
        for period in periods {
            let lowest = period.map { pictures[$0].count }.min() ?? 0
            let offsets = period.map { pictures[$0].count - lowest }
            let spread = (offsets.max() ?? 0) / spacing
            let regular =
                offsets.allSatisfy { $0 % spacing == 0 } && Set(offsets).count == offsets.count
                && spread < 2 * Int64(period.count) + 16
            if regular {
                for (index, offset) in zip(period, offsets) { pts[index] = base + offset / spacing }
                base += spread + 1
            } else {
                let ranked = period.sorted { (pictures[$0].count, $0) < (pictures[$1].count, $1) }
                for (rank, index) in ranked.enumerated() { pts[index] = base + Int64(rank) }
                base += Int64(period.count)
            }
        }
        self.pts = pts
        // The latest decoding times that keep decoding order and precede every later presentation.
        var dts = [Int64](repeating: 0, count: pictures.count)
        var earliestLater = Int64.max
        for index in pictures.indices.reversed() {
            earliestLater = min(earliestLater, pts[index])
            dts[index] = index == pictures.count - 1 ? earliestLater : min(earliestLater, dts[index + 1] - 1)
        }
        self.dts = dts
    }

    /// The most common gap between neighbouring picture order counts of a period, or nil with no gap.
    static func spacing(of pictures: [PictureOrder]) -> Int64? {
        var gaps: [Int64] = []
        for period in periods(pictures) {
            let counts = period.map { pictures[$0].count }.sorted()
            gaps += zip(counts, counts.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }
        }
        return mostCommon(gaps)
    }

    /// The pictures' indices grouped into periods, each starting at a picture that resets picture order.
    private static func periods(_ pictures: [PictureOrder]) -> [[Int]] {
        var periods: [[Int]] = []
        for (index, picture) in pictures.enumerated() {
            if picture.startsPeriod || periods.isEmpty {
                periods.append([index])
            } else {
                periods[periods.count - 1].append(index)
            }
        }
        return periods
    }
}
