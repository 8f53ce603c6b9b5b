/// Presentation and decoding timestamps, in frames, for pictures listed in decoding order.
///
/// Pictures are grouped into periods, each starting at a picture that resets picture order
/// (`PictureOrder.startsPeriod`); a period is shown after everything before it, and within a period
/// pictures are shown in increasing picture order count. The presentation timestamp is the display
/// index. The decoding timestamp is the decoding index minus the largest distance any picture is
/// decoded ahead of its display, so every dts ≤ its pts and dts increase by one per picture.
public struct PresentationTimeline: Equatable, Sendable {
    /// Presentation timestamp of each picture, in decoding order.
    public let pts: [Int64]
    /// Decoding timestamp of each picture, in decoding order.
    public let dts: [Int64]
    /// How many frames decoding runs ahead of presentation.
    public let delay: Int64

    public init(pictures: [PictureOrder]) {
        var pts = [Int64](repeating: 0, count: pictures.count)
        var periodStart = 0
        while periodStart < pictures.count {
            var periodEnd = periodStart + 1
            while periodEnd < pictures.count, !pictures[periodEnd].startsPeriod { periodEnd += 1 }
            let displayOrder = (periodStart..<periodEnd).sorted {
                (pictures[$0].count, $0) < (pictures[$1].count, $1)
            }
            for (rank, index) in displayOrder.enumerated() { pts[index] = Int64(periodStart + rank) }
            periodStart = periodEnd
        }
        let delay = pts.enumerated().map { Int64($0.offset) - $0.element }.max().map { max(0, $0) } ?? 0
        self.pts = pts
        self.dts = (0..<pictures.count).map { Int64($0) - delay }
        self.delay = delay
    }

    public var count: Int { pts.count }
}
