import MediaCore

/// The size libavfilter's `scale` gives a picture for a `width` and `height` of which either may be
/// missing: both given are the size; one alone keeps the source's shape, the other side rounded to the
/// nearest even number (`scale=W:-2`); neither keeps the source's size. The transcode and thumbnail
/// filters scale so, and admission checks predict their output size with it from a probe.
struct ScaledSize: Equatable {
    var width: Int
    var height: Int

    init(width: Int?, height: Int?, source: (width: Int, height: Int)) {
        switch (width, height) {
        case (let width?, let height?):
            (self.width, self.height) = (width, height)
        case (let width?, nil):
            (self.width, self.height) = (width, Self.even(width, source.height, source.width))
        case (nil, let height?):
            (self.width, self.height) = (Self.even(height, source.width, source.height), height)
        case (nil, nil):
            (self.width, self.height) = source
        }
    }

    /// `value × numerator / denominator` to the nearest even number, as `av_rescale` rounds.
    private static func even(_ value: Int, _ numerator: Int, _ denominator: Int) -> Int {
        guard denominator > 0 else { return value }
        let halves = (2 * value * numerator + 2 * denominator) / (4 * denominator)
        return halves * 2
    }
}
