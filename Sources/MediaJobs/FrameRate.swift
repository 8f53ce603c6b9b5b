/// A video frame rate as an exact fraction, e.g. 30000/1001.
public struct FrameRate: Equatable, Sendable, TextCodable {
    public static let textName = "frame rate"

    public var numerator: Int
    public var denominator: Int

    /// The rates mediad takes, in frames per second: every `fps` option, its checks, messages and help.
    public static let limits = 1...240

    /// The limits as messages write them: `1…240`.
    public static var limitsText: String { "\(limits.lowerBound)…\(limits.upperBound)" }

    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Parses `25`, `29.97` (read as 30000/1001), `23.976`, or `num/den`; nil outside `limits`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let num = Int(parts[0]), let den = Int(parts[1]), num > 0, den > 0 else { return nil }
            (numerator, denominator) = (num, den)
        } else if let whole = Int(text) {
            (numerator, denominator) = (whole, 1)
        } else if let decimal = Double(text), decimal.isFinite {
            let ntsc = [23.976: 24000, 29.97: 30000, 59.94: 60000, 119.88: 120000]
            if let num = ntsc.first(where: { abs($0.key - decimal) < 0.0005 })?.value {
                (numerator, denominator) = (num, 1001)
            } else {
                // `Int(exactly:)`: 1e300 is refused like any rate out of range, not a trap.
                guard let thousandths = Int(exactly: (decimal * 1000).rounded()) else { return nil }
                (numerator, denominator) = (thousandths, 1000)
            }
        } else {
            return nil
        }
        guard isWithinLimits else { return nil }
    }

    /// Whether the rate is a positive fraction within `limits`.
    public var isWithinLimits: Bool {
        numerator > 0 && denominator > 0
            && (Double(Self.limits.lowerBound)...Double(Self.limits.upperBound)).contains(framesPerSecond)
    }

    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}
