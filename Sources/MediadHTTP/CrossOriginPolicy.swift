import Foundation
import NIOHTTP1

/// Which web origins may read a job's outputs from a page of their own (CORS, `--cors-origins`): a web
/// player on another origin plays a package straight from mediad. Only the download routes and their
/// preflights answer with CORS headers; the rest of the API stays same-origin.
public struct CrossOriginPolicy: Sendable, Equatable {
    /// `*`: every origin; otherwise the origins listed (`https://player.example`), compared exactly.
    public let origins: [String]

    public static let anyOrigin = CrossOriginPolicy(origins: ["*"])
    public static let noOrigin = CrossOriginPolicy(origins: [])

    public init(origins: [String]) { self.origins = origins }

    /// Reads `--cors-origins`: `*`, `none`, or a comma-separated list of `scheme://host[:port]` origins;
    /// nil when an entry is not an origin.
    public init?(parsing text: String) {
        if text == "*" {
            self = .anyOrigin
            return
        }
        if text == "none" {
            self = .noOrigin
            return
        }
        let entries = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !entries.isEmpty, entries.allSatisfy(Self.isOrigin) else { return nil }
        origins = entries
    }

    /// `http://` or `https://`, a host, an optional port, and no path, query or fragment.
    private static func isOrigin(_ text: String) -> Bool {
        let schemes = ["http://", "https://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else { return false }
        let authority = text.dropFirst(scheme.count)
        return !authority.isEmpty && !authority.contains { "/?#@ ".contains($0) }
    }

    /// The `Access-Control-Allow-Origin` for a request from `origin`, or nil when it may not read.
    func allowedOrigin(for origin: String?) -> String? {
        if origins == ["*"] { return "*" }
        guard let origin, origins.contains(origin) else { return nil }
        return origin
    }

    /// Response headers a browser needs to let a page read the answer: the allowed origin (`Vary: Origin`
    /// when it depends on the request) and the headers a player reads besides the simple ones.
    package func headers(for request: Request) -> [(String, String)] {
        var headers: [(String, String)] = origins == ["*"] ? [] : [("Vary", "Origin")]
        guard let allowed = allowedOrigin(for: request.head.headers.first(name: "origin")) else { return headers }
        headers.append(("Access-Control-Allow-Origin", allowed))
        headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
        return headers
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`): 204 with the methods and
    /// request headers a player may use, valid for a day; `Allow` for a plain `OPTIONS`.
    package func preflight(_ request: Request) -> Response {
        var response = Response(status: .noContent, headers: ["allow": "GET, HEAD, OPTIONS"])
        let asked = request.head.headers.first(name: "access-control-request-method") != nil
        if asked, allowedOrigin(for: request.head.headers.first(name: "origin")) != nil {
            response.headers.add(name: "Access-Control-Allow-Methods", value: "GET, HEAD, OPTIONS")
            response.headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedRequestHeaders)
            response.headers.add(name: "Access-Control-Max-Age", value: "86400")
        }
        return response
    }

    /// What a player sends besides simple headers: byte ranges, revalidation and a bearer token.
    static let allowedRequestHeaders = "Range, If-Match, If-None-Match, If-Range, Authorization"

    /// What a player reads besides the CORS-safelisted response headers.
    static let exposedHeaders = "Content-Length, Content-Range, Accept-Ranges, ETag, Content-Disposition, X-Request-Id"
}
