import Foundation

/// A failure of the job store, with a stable `code` the API can show as-is and a message for people.
///
/// Codes: `io_error` (the file system refused), `not_found` (no such job), `already_exists` (a job with that
/// id is already stored), `invalid_id`, `invalid_file_name` (a client
/// sent something the store cannot accept), `corrupt_record` (a `job.json` that does not decode),
/// `insufficient_storage` (the disk is full or below the `DiskWatermark`), `lease_lost` (in a shared store,
/// another replica took over the job this one was about to save), `store_in_use` (another server holds the
/// data directory's `StoreLock`); and from the job service's storage accounting, `quota_exceeded` (an API
/// token would store more than `--quota`) and `too_many_uploads` (it holds `--max-pending-uploads`
/// unfinished tus uploads).
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func io(_ action: String, _ path: String, errno code: Int32 = errno) -> StoreError {
        let full = code == ENOSPC || code == EDQUOT
        return StoreError(
            code: full ? "insufficient_storage" : "io_error",
            message: "\(action) \(path): \(String(cString: strerror(code)))")
    }

    public static func notFound(_ id: String) -> StoreError {
        StoreError(code: "not_found", message: "no job \(id)")
    }

    static func invalidID(_ id: String) -> StoreError {
        StoreError(code: "invalid_id", message: "not a job id: \(id.prefix(40))")
    }

    static func invalidFileName(_ name: String) -> StoreError {
        StoreError(
            code: "invalid_file_name",
            message:
                "file names are 1-100 characters of A-Z a-z 0-9 . _ - and do not start with '.': \(name.prefix(40))")
    }

    public static func leaseLost(_ id: String) -> StoreError {
        StoreError(code: "lease_lost", message: "job \(id) was taken over by another replica")
    }
}
