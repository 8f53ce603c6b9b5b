/// The picture sizes one encoder takes, so that a size it would refuse (or fail on) is an `invalid_option`
/// naming the limit before any work, rather than whatever error the encoder's open turns into.
///
/// Two bounds apply: the encoder's own range for each side, and libav's bound on any picture, which
/// `avcodec_open2`, the filters and the frame allocator all check (`av_image_check_size`):
/// (width + 128) × (height + 128) under 2³¹ / 8, so at 16384 wide a picture is at most 16128 tall.
public struct PictureSizeLimit: Sendable, Equatable {
    /// What the limit is of, for messages, e.g. `h264 (libx264)`.
    public var encoder: String
    public var widths: ClosedRange<Int>
    public var heights: ClosedRange<Int>

    public init(_ encoder: String, widths: ClosedRange<Int>, heights: ClosedRange<Int>) {
        self.encoder = encoder
        self.widths = widths
        self.heights = heights
    }

    /// libav's bound: (width + 128) × (height + 128) must stay under this (`INT_MAX / 8`).
    public static let libavPixelBound = Int(Int32.max) / 8

    /// Whether libav takes a picture of this size at all.
    public static func libavTakes(width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && (width + 128) * (height + 128) < libavPixelBound
    }

    /// The tallest picture libav takes at `width`.
    public static func libavMaximumHeight(width: Int) -> Int {
        (libavPixelBound - 1) / (width + 128) - 128
    }

    /// Throws `invalid_option` unless the encoder takes a `width`×`height` picture; `what` names the
    /// picture in the message (e.g. "the output picture", "width and height").
    public func check(width: Int, height: Int, what: String) throws {
        try check(width: width, what: what, size: "\(width)x\(height)")
        try check(height: height, what: what, size: "\(width)x\(height)")
        guard Self.libavTakes(width: width, height: height) else {
            throw MediaError(
                .invalidOption,
                "\(what) \(width)x\(height) has more pixels than libav codes in one picture: at width \(width) "
                    + "the height is at most \(max(0, Self.libavMaximumHeight(width: width))) "
                    + "((width + 128) × (height + 128) must stay under \(Self.libavPixelBound))")
        }
    }

    /// Throws `invalid_option` unless `width` alone is in the encoder's range (the height follows later).
    public func check(width: Int, what: String, size: String? = nil) throws {
        guard widths.contains(width) else {
            throw MediaError(.invalidOption, message(what, size ?? "width \(width)", "wide", widths))
        }
    }

    /// Throws `invalid_option` unless `height` alone is in the encoder's range.
    public func check(height: Int, what: String, size: String? = nil) throws {
        guard heights.contains(height) else {
            throw MediaError(.invalidOption, message(what, size ?? "height \(height)", "tall", heights))
        }
    }

    private func message(_ what: String, _ size: String, _ side: String, _ range: ClosedRange<Int>) -> String {
        "\(what) \(size) is outside what \(encoder) codes: \(range.lowerBound) to \(range.upperBound) pixels \(side)"
    }
}
