import JobStore
import MediaCore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// The one place where the domain's errors become HTTP statuses.
extension ServiceError {
    /// A store or job service failure: 404 for a job that is not there, 507 for a full disk or a quota
    /// reached, 423 for a tus upload another request is writing to, 429 for an API token with as many
    /// unfinished uploads as it may hold, 503 with `Retry-After` while the replicas' database cannot be
    /// used, 500 for anything else (the store fails on its own, not the
    /// client's, account).
    init(_ error: StoreError) {
        let status: HTTPResponseStatus =
            switch error.code {
            case .notFound: .notFound
            case .insufficientStorage, .quotaExceeded: .insufficientStorage
            case .uploadLocked: .locked
            case .tooManyUploads: .tooManyRequests
            case .storeUnavailable: .serviceUnavailable
            default: .internalServerError
            }
        let retry = error.code == .storeUnavailable ? [("Retry-After", "5")] : []
        self.init(status, error.code.rawValue, error.message, headers: retry)
    }

    /// Any error a handler throws, as the response reports it: domain errors by the rules above, anything
    /// else a 500 `internal_error`.
    init(describing error: any Error) {
        switch error {
        case let error as ServiceError: self = error
        case let error as MediaError: self.init(error)
        case let error as StoreError: self.init(error)
        default: self.init(.internalServerError, "internal_error", "\(error)")
        }
    }

    /// The status an engine error is reported with when it happens during a request (probe, option checks);
    /// a 503 `storage_unavailable` says when to retry (`Retry-After`).
    init(_ error: MediaError) {
        let status: HTTPResponseStatus =
            switch error.code {
            case .invalidOption, .conflictingOptions, .emptyInput, .inputRefused, .outputRefused,
                .egressDisabled:
                .badRequest
            case .unsupportedFormat: .unsupportedMediaType
            case .ioError, .internalError: .internalServerError
            case .cancelled, .storageUnavailable: .serviceUnavailable
            case .insufficientStorage, .quotaExceeded: .insufficientStorage
            default: .unprocessableEntity
            }
        // The object store failed through its retry window: the client may try again once it is back.
        let retry = error.code == .storageUnavailable ? [("Retry-After", "5")] : []
        self.init(status, error.code.rawValue, error.message, headers: retry)
    }
}
