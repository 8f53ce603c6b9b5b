/// Parses `application/x-www-form-urlencoded` query strings.
enum QueryString {
    static func parse(_ query: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecode(String(parts[0]), plusIsSpace: true),
                let value = percentDecode(parts.count > 1 ? String(parts[1]) : "", plusIsSpace: true)
            else { throw ServiceError.invalidRequest("the query string is not valid percent-encoding") }
            guard result[key] == nil else {
                throw ServiceError.invalidRequest("query parameter '\(key)' is given twice")
            }
            result[key] = value
        }
        return result
    }

    /// Decodes `%XX` escapes (and `+` as space in queries); nil for malformed escapes or invalid UTF-8.
    static func percentDecode(_ text: String, plusIsSpace: Bool = false) -> String? {
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
        return String(validating: bytes, as: UTF8.self)
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
