/// An sRGB colour with alpha, as options write it: `RRGGBB` or `RRGGBBAA` in hex, with or without `#`.
public struct RGBAColor: Sendable, Equatable, TextCodable {
    public static let textName = "colour"

    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// Parses `3a74e6`, `#3A74E6` or `3a74e680`; nil for anything else.
    public init?(parsing text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
            let value = UInt32(digits, radix: 16)
        else { return nil }
        let rgba = digits.count == 6 ? value << 8 | 0xff : value
        self.init(
            red: UInt8(rgba >> 24 & 0xff), green: UInt8(rgba >> 16 & 0xff), blue: UInt8(rgba >> 8 & 0xff),
            alpha: UInt8(rgba & 0xff))
    }

    /// `rrggbb`, or `rrggbbaa` when not opaque.
    public var description: String {
        let bytes = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
