import Foundation
import Synchronization

/// The `Date` of a response as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7).
///
/// RFC 9110 §6.6.1 has an origin server with a clock send `Date` on every 2xx, 3xx and 4xx response;
/// caches compute a response's age from it. Formatted by hand from `gmtime_r`: no locale, no formatter
/// shared between event loops.
package enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// The last second formatted by `now()` and its text: under load every response of a second shares it.
    private static let latest = Mutex<(second: time_t, text: String)>((-1, ""))

    /// The current second as an IMF-fixdate, formatted once a second rather than once a response.
    package static func now() -> String {
        let second = time(nil)
        if let text = latest.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(second)
        latest.withLock { $0 = (second, text) }
        return text
    }

    /// `seconds` since the epoch (now by default) as an IMF-fixdate.
    package static func format(_ seconds: time_t = time(nil)) -> String {
        var clock = seconds
        var parts = tm()
        gmtime_r(&clock, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
