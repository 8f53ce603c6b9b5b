import Foundation

/// The POSIX file operations the store is built from: full writes, fsync of files and directories,
/// atomic replacement, directory listing and removal.
///
/// All of it is blocking I/O, meant to run on a thread pool.
enum FileIO {
    /// Writes every byte of `bytes` to `fd`, retrying short writes and `EINTR`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(fd, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError.io("cannot write", path)
            }
            base += written
            remaining -= written
        }
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
        guard fsync(fd) == 0 else { throw StoreError.io("cannot fsync", path) }
    }

    /// Starts writing a range of a file's dirty pages to disk without waiting for it (Linux's
    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so a later `fsync` has little left to do. Only a
    /// hint: where the call is missing or fails, `fsync` does all the work as before.
    static func startWriteback(_ fd: Int32, offset: Int64, length: Int64) {
        _ = syncFileRange?(fd, offset, length, 2)  // SYNC_FILE_RANGE_WRITE
    }

    /// glibc's `sync_file_range`, which the Glibc module does not import (it is a GNU extension).
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? =
        dlsym(nil, "sync_file_range").map {
            unsafeBitCast($0, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        }

    /// Makes a directory's entries (files created, renamed or removed in it) durable.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("cannot open directory", path) }
        defer { close(fd) }
        // Some file systems cannot fsync a directory (EINVAL); their entries are as durable as they get.
        guard fsync(fd) == 0 || errno == EINVAL else { throw StoreError.io("cannot fsync directory", path) }
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

    /// Replaces `path` with `data` so that readers (and a crash) see the old content or the new, never a mix:
    /// a hidden temporary file beside it is written and synced, renamed over `path`, and the directory synced.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + "." + JobStore.newID() + ".tmp"
        try createSynced(data, at: temporary)
        do {
            try rename(temporary, to: path)
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }

    /// Creates `path` (which must not exist) holding `data`, synced to the disk; nothing is left at `path`
    /// when it fails. The first step of every atomic write: the file is then renamed or linked into place.
    static func createSynced(_ data: Data, at path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError.io("cannot create", path) }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { try writeAll(fd, $0, path: path) }
            try sync(fd, path: path)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Names in a directory, hidden ones included, in no particular order.
    static func entries(_ path: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StoreError(code: "io_error", message: "cannot list \(path): \(error.localizedDescription)")
        }
    }

    /// Removes a file or a whole directory tree.
    static func remove(_ path: String) throws {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw StoreError(code: "io_error", message: "cannot remove \(path): \(error.localizedDescription)")
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
