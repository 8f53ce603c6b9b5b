import ArgumentParser
import Foundation

/// A duration as an option writes it: seconds, or a number followed by `s`, `m`, `h` or `d`; fractions allowed.
///
/// It is finite, not negative and at most a century, far from the nanosecond counts that overflow:
/// `1e300` is refused as text, never turned into a timer that traps.
struct Seconds: ExpressibleByArgument, Sendable, Equatable {
    let value: TimeInterval

    /// The longest duration any option takes.
    static let maximum: TimeInterval = 100 * 365 * 86400

    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]

    /// A last character that is neither a digit nor a unit is dropped, as `mediad serve` always has.
    init?(argument: String) {
        let scale = argument.last.flatMap { Self.units[$0] } ?? 1
        let number = scale == 1 && argument.last?.isNumber == true ? argument : String(argument.dropLast())
        guard let count = Double(number), count.isFinite, count >= 0, count * scale <= Self.maximum else {
            return nil
        }
        value = count * scale
    }
}
