import Foundation

/// A failure of the job store, with a stable `code` the API can show as-is and a message for people.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// What failed may have been done all the same (a database's answer that never came): the caller keeps
    /// what it would otherwise undo, for a sweep that checks later.
    public var mayHaveTakenEffect = false

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func io(_ action: String, _ path: String, errno code: Int32 = errno) -> StoreError {
        let full = code == ENOSPC || code == EDQUOT
        return StoreError(
            code: full ? .insufficientStorage : .ioError,
            message: "\(action) \(path): \(String(cString: strerror(code)))")
    }

    public static func notFound(_ id: String) -> StoreError {
        StoreError(code: .notFound, message: "no job \(id)")
    }

    static func invalidID(_ id: String) -> StoreError {
        StoreError(code: .invalidID, message: "not a job id: \(id.prefix(40))")
    }

    static func invalidFileName(_ name: String) -> StoreError {
        StoreError(
            code: .invalidFileName,
            message:
                "file names are 1-100 characters of A-Z a-z 0-9 . _ - and do not start with '.': \(name.prefix(40))")
    }

    public static func leaseLost(_ id: String) -> StoreError {
        StoreError(code: .leaseLost, message: "job \(id) was taken over by another replica")
    }
}
