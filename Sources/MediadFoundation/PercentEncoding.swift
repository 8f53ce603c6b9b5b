import Foundation

/// RFC 3986 percent-encoding, both ways: the client escapes what it puts in paths and queries, the server
/// decodes request paths and `application/x-www-form-urlencoded` queries.
package enum PercentEncoding {
    /// RFC 3986's unreserved characters, the only ones `encode` leaves as they are.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// `text` with every UTF-8 byte but the unreserved characters written as `%XX`.
    package static func encode(_ text: String) -> String {
        String(
            text.utf8.flatMap { byte -> [Character] in
                unreserved.contains(byte) ? [Character(Unicode.Scalar(byte))] : Array(String(format: "%%%02X", byte))
            })
    }

    /// Decodes `%XX` escapes (and `+` as space in queries); nil for malformed escapes or invalid UTF-8.
    package static func decode(_ text: String, plusIsSpace: Bool = false) -> String? {
        decodeBytes(text, plusIsSpace: plusIsSpace).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes `text` stands for once its `%XX` escapes are decoded; nil for a malformed escape.
    package static func decodeBytes(_ text: String, plusIsSpace: Bool = false) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
