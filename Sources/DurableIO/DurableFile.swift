import Foundation

/// The POSIX steps that make a file's content survive a crash, shared by the media engine (outputs, `info.json`)
/// and the job store (records, leases, uploads): full writes, `fsync` of files and directories, early
/// writeback, and atomic replacement through a hidden temporary file.
///
/// All of it is blocking I/O, meant to run on a thread pool or in a worker process.
/// Every failure is thrown as a `FileSystemError`.
public enum DurableFile {
    /// How much a file may grow between two `startWriteback` calls of its writer.
    public static let writebackInterval: Int64 = 8 << 20

    /// Writes every byte of `bytes` to `fd`, retrying short writes and `EINTR`.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(fd, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("cannot write", path)
            }
            base += written
            remaining -= written
        }
    }

    /// Writes every byte of `chunks`, in order, with as few `writev` calls as the kernel allows (one for a
    /// body's socket reads gathered into a block, which then need no copy into one buffer first), retrying
    /// short writes and `EINTR`.
    public static func writeAll(_ fd: Int32, _ chunks: [UnsafeRawBufferPointer], path: String) throws {
        var vectors = chunks.compactMap { chunk in
            chunk.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: chunk.count) }
        }
        var first = 0
        while first < vectors.count {
            let count = Int32(min(vectors.count - first, maxVectors))
            let written = vectors.withUnsafeBufferPointer { writev(fd, $0.baseAddress! + first, count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("cannot write", path)
            }
            var left = written
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base += left
                vectors[first].iov_len -= left
            }
        }
    }

    /// Most buffers one `writev` takes (Linux's `UIO_MAXIOV`).
    private static let maxVectors = 1024

    /// Makes an open file's content durable.
    public static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw FileSystemError("cannot fsync", path) }
    }

    /// Makes a closed file's content durable.
    public static func syncFile(atPath path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("cannot open to sync", path) }
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// Makes a directory's entries (files created, renamed or removed in it) durable.
    public static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("cannot open directory", path) }
        defer { close(fd) }
        // Some file systems cannot fsync a directory (EINVAL); their entries are as durable as they get.
        guard fsync(fd) == 0 || errno == EINVAL else { throw FileSystemError("cannot fsync directory", path) }
    }

    /// Makes the entry of `path` in its directory durable, after the file was created or renamed there.
    public static func syncDirectory(containing path: String) throws {
        try syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Starts writing a range of a file's dirty pages to disk without waiting for it (Linux's
    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`; a length of 0 runs to the end of the file), so that the
    /// `fsync` which makes it durable has only the last pages left to wait for. Only a hint: where the call
    /// is missing or fails, `fsync` does all the work as before.
    public static func startWriteback(_ fd: Int32, offset: Int64 = 0, length: Int64 = 0) {
        _ = syncFileRange?(fd, offset, length, 2)  // SYNC_FILE_RANGE_WRITE
    }

    /// glibc's `sync_file_range`, which the Glibc module does not import (it is a GNU extension).
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? =
        dlsym(nil, "sync_file_range").map {
            unsafeBitCast($0, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        }

    /// Creates `path` (which must not exist) holding `data`, synced to the disk; nothing is left at `path`
    /// when it fails. The first step of every atomic write: the file is then renamed or linked into place.
    public static func createSynced(_ data: Data, at path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError("cannot create", path) }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { bytes throws in try writeAll(fd, bytes, path: path) }
            try sync(fd, path: path)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Replaces `path` with `data` so that readers (and a crash) see the old content or the new, never a mix:
    /// a hidden temporary file beside it (`temporaryPath(for:)`) is written and synced, renamed over `path`,
    /// and the directory synced.
    public static func replace(_ path: String, with data: Data) throws {
        let temporary = temporaryPath(for: path)
        try createSynced(data, at: temporary)
        guard rename(temporary, path) == 0 else {
            let error = FileSystemError("cannot rename \(temporary) to", path)
            unlink(temporary)
            throw error
        }
        try syncDirectory(containing: path)
    }

    /// `.<name>.partial-<pid>-<random>` beside `path`: hidden, so the store's recovery removes it after a
    /// crash, and marked `.partial-`, so a worker's supervisor removes it after killing the worker.
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }
}
