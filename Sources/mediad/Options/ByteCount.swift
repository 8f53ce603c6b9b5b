import ArgumentParser

/// A size in bytes as an option writes it: a whole number, or one followed by a binary unit `K`, `M`, `G` or
/// `T` in either case (`4G` is 4 × 2³⁰ bytes).
///
/// It is more than 0 and fits in `Int64`: `99999999999T` is refused as text, never multiplied into a trap.
struct ByteCount: ExpressibleByArgument, Sendable, Equatable {
    let bytes: Int64
    /// The text it was read from, which help shows as a default (`64M`).
    let text: String

    private static let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]

    init?(argument: String) {
        let digits = argument.uppercased()
        let scale = digits.last.flatMap { Self.units[$0] } ?? 1
        guard let number = Int64(scale == 1 ? digits : String(digits.dropLast())), number > 0,
            case let (bytes, overflow) = number.multipliedReportingOverflow(by: scale), !overflow
        else { return nil }
        self.bytes = bytes
        self.text = argument
    }

    var defaultValueDescription: String { text }

    /// The same size, however it was written.
    static func == (lhs: ByteCount, rhs: ByteCount) -> Bool { lhs.bytes == rhs.bytes }
}
