import Logging
import NIOHTTP1

/// The record of each answered request: one log line and the request metrics.
///
/// The line holds the method, the path without its query string (options stay out of logs), the status,
/// the bytes sent, the duration, the request id and the route's template. No header is logged, so the
/// `Authorization` token never is.
package struct AccessLog: Sendable {
    package let logger: Logger
    /// Longest path written to a log line; longer ones are cut with `…`.
    package static let maxLoggedPath = 512

    /// One request, from its head's arrival to its response's last write.
    package struct Entry {
        var method: HTTPMethod
        var uri: String
        var route: String?
        var status: HTTPResponseStatus
        var sent: Int
        var received: Int64
        var duration: Duration
        var requestID: String
    }

    package func record(_ entry: Entry) {
        let method = entry.method.rawValue
        HTTPMetrics.request(
            method: method, route: entry.route, status: entry.status.code, duration: entry.duration,
            received: entry.received, sent: entry.sent)
        let rawPath = entry.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let path = rawPath.count > Self.maxLoggedPath ? rawPath.prefix(Self.maxLoggedPath) + "…" : String(rawPath)
        logger.info(
            "request",
            metadata: [
                "method": .string(method), "path": .string(path), "status": .stringConvertible(entry.status.code),
                "bytes": .stringConvertible(entry.sent), "received": .stringConvertible(entry.received),
                "duration_ms": .stringConvertible(Self.milliseconds(entry.duration)),
                "request_id": .string(entry.requestID),
                "route": .string(entry.route ?? HTTPMetrics.unmatchedRoute),
            ])
    }

    /// Milliseconds with three decimals.
    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }
}
