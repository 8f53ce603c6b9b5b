import JobStore
import MediaCore
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

    static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, "not_found", message) }
    static func invalidRequest(_ message: String) -> ServiceError {
        ServiceError(.badRequest, "invalid_request", message)
    }

    /// A store or job service failure: 404 for a job that is not there, 507 for a full disk, 500 for
    /// anything else (the store fails on its own, not the client's, account).
    init(_ error: StoreError) {
        let status: HTTPResponseStatus =
            switch error.code {
            case "not_found": .notFound
            case "insufficient_storage": .insufficientStorage
            default: .internalServerError
            }
        self.init(status, error.code, error.message)
    }

    /// The status an engine error is reported with when it happens during a request (probe, option checks).
    init(_ error: MediaError) {
        let status: HTTPResponseStatus =
            switch error.code {
            case .invalidOption, .conflictingOptions, .emptyInput: .badRequest
            case .unsupportedFormat: .unsupportedMediaType
            case .ioError, .internalError: .internalServerError
            case .cancelled: .serviceUnavailable
            case .insufficientStorage: .insufficientStorage
            default: .unprocessableEntity
            }
        self.init(status, error.code.rawValue, error.message)
    }
}
