import DurableIO
import Foundation

/// The POSIX file operations the store is built from: the durable writes of `DurableFile`, failing with
/// `StoreError`, and directory listing, creation and removal.
///
/// All of it is blocking I/O, meant to run on a thread pool.
enum FileIO {
    /// Writes every byte of `bytes` to `fd`, retrying short writes and `EINTR`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        try storeErrors { try DurableFile.writeAll(fd, bytes, path: path) }
    }

    /// Writes every byte of `chunks`, in order (`writev`), retrying short writes and `EINTR`.
    static func writeAll(_ fd: Int32, _ chunks: [UnsafeRawBufferPointer], path: String) throws {
        try storeErrors { try DurableFile.writeAll(fd, chunks, path: path) }
    }

    /// Reads up to `buffer.count` bytes, retrying `EINTR`; 0 at end of file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        while true {
            let count = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw StoreError.io("cannot read", path) }
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        try storeErrors { try DurableFile.sync(fd, path: path) }
    }

    /// Makes a directory's entries (files created, renamed or removed in it) durable.
    static func syncDirectory(_ path: String) throws {
        try storeErrors { try DurableFile.syncDirectory(path) }
    }

    /// Creates a directory; an existing one is fine when `mayExist`.
    static func makeDirectory(_ path: String, mayExist: Bool = false) throws {
        guard mkdir(path, 0o755) == 0 || (mayExist && errno == EEXIST) else {
            throw StoreError.io("cannot create directory", path)
        }
    }

    static func rename(_ from: String, to: String) throws {
        guard Foundation.rename(from, to) == 0 else { throw StoreError.io("cannot rename \(from) to", to) }
    }

    /// Replaces `path` with `data` so that readers (and a crash) see the old content or the new, never a mix.
    static func writeAtomically(_ data: Data, to path: String) throws {
        try storeErrors { try DurableFile.replace(path, with: data) }
    }

    /// Creates `path` (which must not exist) holding `data`, synced to the disk; nothing is left at `path`
    /// when it fails.
    static func createSynced(_ data: Data, at path: String) throws {
        try storeErrors { try DurableFile.createSynced(data, at: path) }
    }

    /// Runs durable-file steps, failing with the store's `io_error` (`insufficient_storage` when the disk is full).
    private static func storeErrors(_ steps: () throws -> Void) throws {
        do {
            try steps()
        } catch let error as FileSystemError {
            throw StoreError.io(error.action, error.path, errno: error.errno)
        }
    }

    /// Names in a directory, hidden ones included, in no particular order.
    static func entries(_ path: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StoreError(code: .ioError, message: "cannot list \(path): \(error.localizedDescription)")
        }
    }

    /// Removes a file or a whole directory tree.
    static func remove(_ path: String) throws {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw StoreError(code: .ioError, message: "cannot remove \(path): \(error.localizedDescription)")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
