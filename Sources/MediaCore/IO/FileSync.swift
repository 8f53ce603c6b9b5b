import Foundation

/// fsync helpers for making a finished file durable before and after it gets its final name.
public enum FileSync {
    public static func syncFile(atPath path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw MediaError(.ioError, "cannot open \(path) to sync: \(errnoText)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw MediaError(.ioError, "fsync \(path): \(errnoText)") }
    }

    public static func syncDirectory(containing path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw MediaError(.ioError, "cannot open \(directory) to sync: \(errnoText)") }
        defer { close(fd) }
        _ = fsync(fd)
    }

    /// How much a file may grow between two `startWriteback` calls of its writer.
    public static let writebackInterval: Int64 = 8 << 20

    /// Starts writing a file's dirty pages to disk without waiting (Linux's
    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)` over the whole file), so that the `fsync` which makes a
    /// finished output durable has only the last pages left to wait for. Only a hint: where the call
    /// is missing or fails, `fsync` does all the work as before.
    public static func startWriteback(_ fd: Int32) {
        _ = syncFileRange?(fd, 0, 0, 2)  // SYNC_FILE_RANGE_WRITE
    }

    /// glibc's `sync_file_range`, which the Glibc module does not import (it is a GNU extension).
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? =
        dlsym(nil, "sync_file_range").map {
            unsafeBitCast($0, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        }

    static var errnoText: String { String(cString: strerror(errno)) }
}
