import NIOHTTP1

/// An error the API returns as `{"error":{"code","message"}}` with an HTTP status.
///
/// Codes are stable: clients branch on them. HTTP-level codes live here; media failures keep the
/// engine's `MediaError` code.
public struct ServiceError: Error, Sendable {
    public var status: HTTPResponseStatus
    public var code: String
    public var message: String
    /// Extra response headers, e.g. `Allow` for 405 or `Retry-After` for 429.
    public var headers: [(String, String)] = []

    public init(_ status: HTTPResponseStatus, _ code: String, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    package static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, "not_found", message) }
    package static func invalidRequest(_ message: String) -> ServiceError {
        ServiceError(.badRequest, "invalid_request", message)
    }
}
