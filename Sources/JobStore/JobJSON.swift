import Foundation
import MediaCore

/// `MediaJSON`'s style with times as RFC 3339 with milliseconds: job records on disk, the API's bodies,
/// leases, idempotency entries and webhook payloads.
public enum JobJSON {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = MediaJSON.encoder(pretty: pretty)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(rfc3339(date))
        }
        return encoder
    }

    /// `value` as the store writes it to a file, or `io_error` saying that `what` could not be encoded: a
    /// record, a lease, an entry is never half written for want of a value JSON cannot hold.
    static func fileData<T: Encodable>(_ value: T, pretty: Bool = false, what: @autoclosure () -> String) throws
        -> Data
    {
        do {
            return try encoder(pretty: pretty).encode(value)
        } catch {
            throw StoreError(code: .ioError, message: "cannot encode \(what()): \(error)")
        }
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not RFC 3339: \(text)"))
            }
            return date
        }
        return decoder
    }

    /// `2026-11-22T07:30:00.123Z`: UTC, milliseconds rounded to nearest as `ISO8601DateFormatter` does. The
    /// one RFC 3339 formatter of mediad: job records, lease events and log lines all use it.
    ///
    /// Written out by hand because every job JSON holds up to three times and creating an
    /// `ISO8601DateFormatter` (an ICU formatter underneath) for each one cost most of a
    /// `GET /jobs/{id}`.
    public static func rfc3339(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        var seconds = time_t((milliseconds / 1000).rounded(.down))
        let fraction = Int32(milliseconds - Double(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = parts.tm_year + 1900
        guard (0...9999).contains(year) else {
            // Years of five digits or before year 0: written out in full, the rest padded as usual.
            return "\(year)-\(digits(parts.tm_mon + 1, 2))-\(digits(parts.tm_mday, 2))"
                + "T\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2))"
                + ".\(digits(fraction, 3))Z"
        }
        // Written digit by digit into the string's own storage: every log line and job record has one.
        return String(unsafeUninitializedCapacity: 24) { text in
            var at = 0
            func put(_ value: Int32, _ width: Int) {
                var value = value
                for position in stride(from: at + width - 1, through: at, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += width
            }
            func put(_ separator: Unicode.Scalar) {
                text[at] = UInt8(ascii: separator)
                at += 1
            }
            put(year, 4)
            put("-")
            put(parts.tm_mon + 1, 2)
            put("-")
            put(parts.tm_mday, 2)
            put("T")
            put(parts.tm_hour, 2)
            put(":")
            put(parts.tm_min, 2)
            put(":")
            put(parts.tm_sec, 2)
            put(".")
            put(fraction, 3)
            put("Z")
            return at
        }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func digits(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
