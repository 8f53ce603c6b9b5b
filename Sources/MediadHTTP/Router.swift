import NIOHTTP1

/// Matches a request's method and path against a fixed table of routes.
///
/// A path that matches no pattern is 404; one that matches patterns only under other methods is 405,
/// with `Allow` listing them, `HEAD` with `GET` (RFC 9110 §9.3.2: every `GET` route answers `HEAD`).
public struct Router<Handler: Sendable>: Sendable {
    public private(set) var routes: [(route: Route, handler: Handler)] = []

    public init() {}

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        routes.append((Route(method, pattern), handler))
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
        for (route, handler) in routes {
            guard let parameters = route.match(normalized) else { continue }
            if route.method == method || (method == .HEAD && route.method == .GET) {
                return .found(handler, parameters: parameters)
            }
            allowed.append(route.method)
            if route.method == .GET { allowed.append(.HEAD) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}
