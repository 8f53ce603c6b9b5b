import MediadFoundation

/// RFC 8187 extended parameter values, `charset'language'percent-encoded`, as in `filename*=UTF-8''…`:
/// how a header parameter carries text that is not ASCII.
package enum ExtValue {
    /// `text` as `UTF-8''…`, every byte but RFC 3986's unreserved characters percent-encoded (a subset of
    /// RFC 8187's attr-char, so always valid).
    package static func encode(_ text: String) -> String { "UTF-8''" + PercentEncoding.encode(text) }

    /// The text of an ext-value in UTF-8 or ISO-8859-1 (the two charsets RFC 8187 requires), the language
    /// ignored; nil when it is malformed, in another charset, or its bytes are not valid in its charset.
    package static func decode(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let encoded = parts[2]
        guard encoded.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        switch parts[0].lowercased() {
        case "utf-8":
            return PercentEncoding.decode(String(encoded))
        case "iso-8859-1":
            guard let bytes = PercentEncoding.decodeBytes(String(encoded)) else { return nil }
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// attr-char (RFC 8187 §3.2.1) and the `%` of an escape: what the value part may hold.
    private static let allowed = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~%".unicodeScalars)
}
