import Foundation
import MediadFoundation
import NIOCore
import NIOHTTP1

/// One HTTP request as the handlers see it: head, path, query and route parameters, and its body as a
/// stream read on demand (so uploads go to disk as they arrive, at the pace the disk takes them).
package final class Request {
    package let head: HTTPRequestHead
    package let path: String
    package let query: [String: String]
    package var parameters: [String: String] = [:]
    package let body: RequestBody
    /// Who sent it, when the server has API tokens.
    package var caller: RequestCaller?
    /// The address of the client's end of the connection (`127.0.0.1`, `::1`), without its port: a proxy's
    /// when one forwards the request.
    package var clientAddress: String?
    /// The template of the route it matched (`/jobs/{id}`), for logs and metrics.
    package var route: String?

    package init(head: HTTPRequestHead, body: RequestBody) throws {
        self.head = head
        self.body = body
        for field in Self.singletonFields where head.headers[field].count > 1 {
            throw ServiceError.invalidRequest("the request has more than one \(field) header")
        }
        let uri = Self.originForm(head.uri)
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let rawPath = parts.first.map(String.init), let path = PercentEncoding.decode(rawPath) else {
            throw ServiceError.invalidRequest("the request path is not valid percent-encoding")
        }
        self.path = path
        query = try QueryString.parse(parts.count > 1 ? String(parts[1]) : "")
    }

    package var method: HTTPMethod { head.method }

    /// Header fields a request may carry once: two credentials or two hosts leave it unclear which one
    /// the request means, and a proxy in front may have judged it by the other (RFC 9110 §5.3, §7.2).
    package static let singletonFields = ["Authorization", "Host", "Content-Type"]

    /// The path and query of a request target. RFC 9112 §3.2.2 has servers accept the absolute form
    /// (`http://host/path?query`, as sent to proxies) too: its scheme and authority are dropped.
    package static func originForm(_ target: String) -> String {
        guard let scheme = target.range(of: "://"),
            ["http", "https"].contains(target[..<scheme.lowerBound].lowercased())
        else { return target }
        let rest = target[scheme.upperBound...]
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = rest[start...]
        return tail.hasPrefix("?") ? "/" + tail : String(tail)
    }

    /// The declared body length, if the client sent `Content-Length`.
    package var contentLength: Int64? { head.headers.first(name: "content-length").flatMap { Int64($0) } }

    /// A query parameter read as a number of seconds in 0…`limit` (the `wait` of long polls).
    package func waitSeconds(limit: Double = 300) throws -> Double? {
        guard let raw = query["wait"] else { return nil }
        guard let value = Double(raw), value.isFinite, value >= 0, value <= limit else {
            throw ServiceError(
                .badRequest, "invalid_option", "wait must be a number of seconds from 0 to \(Int(limit))")
        }
        return value
    }
}

/// The body of the request being handled, pulled from the connection's inbound stream.
package final class RequestBody {
    private let source: InboundParts
    package private(set) var finished: Bool
    /// Bytes received so far.
    package private(set) var received: Int64 = 0
    /// Why the body cannot be read, once the parser failed inside it; every later read throws it again.
    private var failure: ServiceError?
    /// Runs once before the body is first read: sends `100 Continue` when the client asked for it, so
    /// a request refused from its head alone (413, 404, bad options) never has its body sent.
    package var beforeFirstRead: (() async throws -> Void)?

    package init(source: InboundParts, expectsBody: Bool) {
        self.source = source
        finished = !expectsBody
    }

    /// The next chunk of the body, or nil at its end.
    package func next() async throws -> ByteBuffer? {
        if let failure { throw failure }
        guard !finished else { return nil }
        if let prepare = beforeFirstRead {
            beforeFirstRead = nil
            try await prepare()
        }
        let part: HTTPServerRequestPart?
        do {
            part = try await source.next()
        } catch let error as HTTPParserError {
            // The request's own failure (a malformed chunk, a body cut short): a 400 for this request.
            failure = ServiceError.invalidRequest("the request body is not valid HTTP/1.1 (\(error))")
            throw failure!
        }
        switch part {
        case .body(let chunk):
            received += Int64(chunk.readableBytes)
            return chunk
        case .end, nil:
            finished = true
            return nil
        case .head:
            throw ServiceError.invalidRequest("a new request started inside a body")
        }
    }

    /// Reads and drops what is left of the body, up to `limit` bytes; false if more was left.
    package func discard(limit: Int64) async throws -> Bool {
        var dropped: Int64 = 0
        while let chunk = try await next() {
            dropped += Int64(chunk.readableBytes)
            if dropped > limit { return false }
        }
        return true
    }
}
