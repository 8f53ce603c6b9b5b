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

    static var errnoText: String { String(cString: strerror(errno)) }
}
