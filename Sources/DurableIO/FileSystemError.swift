import Foundation

/// A file-system call that failed while writing a file durably: what was being done, to which path, and the
/// `errno` it ended with. Callers turn it into their own error (`MediaError`, `StoreError`) with its code.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, as the message's start: `cannot fsync`.
    public var action: String
    public var path: String
    public var errno: Int32

    public init(_ action: String, _ path: String, errno: Int32 = Foundation.errno) {
        self.action = action
        self.path = path
        self.errno = errno
    }

    /// Whether the disk (or the quota) is full, which callers report as running out of storage.
    public var isOutOfSpace: Bool { errno == ENOSPC || errno == EDQUOT }

    /// `cannot fsync /data/job.json: Input/output error`.
    public var description: String { "\(action) \(path): \(String(cString: strerror(errno)))" }
}
