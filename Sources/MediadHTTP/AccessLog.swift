import Logging
import NIOHTTP1

/// The record of each answered request: one log line and the request metrics.
///
/// The line holds the method, the path without its query string (options stay out of logs), the status,
/// the bytes sent, the duration, the request id and the route's template. No header is logged, so the
/// `Authorization` token never is.
package struct AccessLog: Sendable {
    private let lines: any AccessLineWriter
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

    /// Lines go through `logger` (swift-log's metadata dictionary, for any log backend).
    package init(logger: Logger) {
        lines = LoggerLineWriter(logger: logger)
    }

    /// Lines go to `lines` directly: the server's own log handler takes the fields in order, which saves
    /// the dictionary a `Logger` call builds and its sorting on every request.
    package init(lines: any AccessLineWriter) {
        self.lines = lines
    }

    package func record(_ entry: Entry) {
        let method = entry.method.rawValue
        HTTPMetrics.request(
            method: method, route: entry.route, status: entry.status.code, duration: entry.duration,
            received: entry.received, sent: entry.sent)
        guard lines.writesInfo else { return }
        let path = Self.loggedPath(entry.uri)
        lines.writeRequest([
            ("bytes", .stringConvertible(entry.sent)),
            ("duration_ms", .stringConvertible(Self.milliseconds(entry.duration))),
            ("method", .string(method)),
            ("path", .string(path)),
            ("received", .stringConvertible(entry.received)),
            ("request_id", .string(entry.requestID)),
            ("route", .string(entry.route ?? HTTPMetrics.unmatchedRoute)),
            ("status", .stringConvertible(entry.status.code)),
        ])
    }

    /// The path without its query string, cut at `maxLoggedPath` characters.
    private static func loggedPath(_ uri: String) -> String {
        let rawPath = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
        // Characters are counted only when the bytes could be too many: counting them is slow.
        guard rawPath.utf8.count > maxLoggedPath, rawPath.count > maxLoggedPath else { return String(rawPath) }
        return rawPath.prefix(maxLoggedPath) + "…"
    }

    /// Milliseconds with three decimals.
    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }
}

/// Where `AccessLog` writes its `request` lines, at level `info`.
package protocol AccessLineWriter: Sendable {
    /// Whether `info` lines are written at all: when not, no line is made.
    var writesInfo: Bool { get }
    /// Writes one `request` line with `fields`, which come sorted by key.
    func writeRequest(_ fields: [(key: String, value: Logger.Metadata.Value)])
}

/// Access lines through a swift-log `Logger`, whatever its backend.
private struct LoggerLineWriter: AccessLineWriter {
    let logger: Logger

    var writesInfo: Bool { logger.logLevel <= .info }

    func writeRequest(_ fields: [(key: String, value: Logger.Metadata.Value)]) {
        logger.info("request", metadata: Logger.Metadata(fields, uniquingKeysWith: { $1 }))
    }
}
