import NIOHTTP1

/// Matches a request's method and path against a fixed table of routes.
///
/// A route whose pattern matches the path and whose `Route.values` take the path's values serves it. The
/// request goes to the one of its method (`HEAD` to `GET`'s, RFC 9110 §9.3.2); when only routes of other
/// methods serve the path, it is 405 with `Allow` listing them, `HEAD` beside `GET` (`PUT /jobs/<job id>`:
/// `GET, HEAD, DELETE`; `GET /jobs/remux`: `POST, PUT`). A path no route serves goes to the route of the
/// request's method that matches its shape, whose handler answers the value with its own 404
/// (`POST /jobs/transcode`: no such kind), and is 404 without one.
public struct Router<Handler: Sendable>: Sendable {
    public private(set) var routes: [(route: Route, handler: Handler)] = []

    public init() {}

    public mutating func add(_ route: Route, _ handler: Handler) {
        routes.append((route, handler))
    }

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        add(Route(method, pattern), handler)
    }

    /// The outcome of routing one request.
    public enum Match {
        case found(Handler, parameters: [String: String])
        case notFound
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    /// Routes `path` (without the query string). `HEAD` matches `GET` routes.
    public func match(_ method: HTTPMethod, path: String) -> Match {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.first == "" else { return .notFound }
        segments.removeFirst()
        let normalized = segments == [""] ? [] : Array(segments)
        var allowed: [HTTPMethod] = []
        var sameShape: (handler: Handler, parameters: [String: String])?
        for (route, handler) in routes {
            guard let parameters = route.match(normalized) else { continue }
            let sameMethod = route.method == method || (method == .HEAD && route.method == .GET)
            if route.serves(parameters) {
                if sameMethod { return .found(handler, parameters: parameters) }
                allowed.append(route.method)
                if route.method == .GET { allowed.append(.HEAD) }
            } else if sameMethod && sameShape == nil {
                sameShape = (handler, parameters)
            }
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed: allowed) }
        return sameShape.map { .found($0.handler, parameters: $0.parameters) } ?? .notFound
    }
}
