import NIOHTTP1

/// Matches a request's method and path against a fixed table of routes.
///
/// A path that matches no pattern is 404; one that matches patterns only under other methods is 405,
/// with `Allow` listing the methods whose routes take the path's values (`Route.values`): `/jobs/abc`
/// allows `GET` and `DELETE` (a job id), not `POST` (`abc` is no job kind), while `/jobs/remux` allows
/// `POST` and `PUT`. A request whose method has a route of the path's shape still reaches that route's
/// handler whatever the values, so that it answers a value it does not take with its own 404.
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
        for (route, handler) in routes {
            guard let parameters = route.match(normalized) else { continue }
            if route.method == method || (method == .HEAD && route.method == .GET) {
                return .found(handler, parameters: parameters)
            }
            if route.serves(parameters) { allowed.append(route.method) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}
