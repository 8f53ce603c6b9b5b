import Foundation
import Synchronization

/// Input files still being uploaded while their job runs: each grows, written by the server, up to the
/// size its request declared. A reader of such a file asks here before it reads: it waits, blocked in
/// `read(2)` on an inotify descriptor (no CPU time is spent), until the bytes it needs have been written.
///
/// The job's process registers the file with its final size before the job starts and removes it once
/// the job ended. Whether the bytes are the ones the client sent (the size and SHA-256 checks) is the
/// server's to decide when the body ends: it stops the job (killing its worker) when the upload fails, so
/// a reader never has to learn of it.
public enum ArrivingFiles {
    private static let declared = Mutex<[String: Int64]>([:])

    /// Marks `path` as arriving, `size` bytes once complete.
    public static func register(_ path: String, size: Int64) {
        declared.withLock { $0[path] = size }
    }

    /// `path` is no longer read as arriving.
    public static func unregister(_ path: String) {
        declared.withLock { $0[path] = nil }
    }

    /// The size `path` will have once its upload ended, when it is arriving; nil for any other file.
    public static func finalSize(of path: String) -> Int64? {
        declared.withLock { $0[path] }
    }

    /// Returns once `path` holds `bytes` bytes, or all of it when it will not be as long; at once for a
    /// file that is not arriving. Throws `io_error` when the file is gone (its job deleted).
    public static func wait(_ path: String, for bytes: Int64) throws {
        guard let size = finalSize(of: path) else { return }
        try GrowthWatch.wait(path, until: min(bytes, size))
    }

    /// Returns once all of `path` has been written, at once for a file that is not arriving: for readers
    /// that take a file whole.
    public static func waitForAll(_ path: String) throws {
        guard let size = finalSize(of: path) else { return }
        try GrowthWatch.wait(path, until: size)
    }
}

/// Waits for a file to reach a size, with inotify: the watch is set before the size is looked at, so a
/// write between the look and the wait still wakes the waiter.
enum GrowthWatch {
    static func wait(_ path: String, until target: Int64) throws {
        if try size(of: path) >= target { return }
        let watcher = inotify_init1(Int32(IN_CLOEXEC))
        guard watcher >= 0 else { throw error("cannot watch", path) }
        defer { close(watcher) }
        let events = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(watcher, path, events) >= 0 else { throw error("cannot watch", path) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while try size(of: path) < target {
            let count = buffer.withUnsafeMutableBytes { read(watcher, $0.baseAddress, $0.count) }
            if count < 0 && errno != EINTR { throw error("cannot watch", path) }
        }
    }

    /// The file's size now; `io_error` when it is gone.
    private static func size(of path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MediaError(.ioError, "the input \(path) is gone while it was arriving")
        }
        return Int64(info.st_size)
    }

    private static func error(_ what: String, _ path: String) -> MediaError {
        MediaError(.ioError, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
