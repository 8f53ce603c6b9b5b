import Digests
import Foundation
import MediadFoundation
import NIOCore
import NIOHTTP1
import NIOPosix

extension HTTPClient {
    /// A response whose body went to a file.
    public struct Download: Sendable {
        public var status: Int
        /// Bytes written and their SHA-256 (lowercase hex), for a 2xx.
        public var size: Int64
        public var sha256: String
        /// The body of a non-2xx response (kept in memory, nothing written), e.g. a JSON error.
        public var errorBody: [UInt8]
    }

    /// GETs `url` into `path`: the body streams into a hidden temporary file beside it (written on the
    /// thread pool, hashed as it goes) that is renamed to `path` only when the response is a complete 2xx.
    /// No timeout: a large file takes as long as it takes.
    public func download(_ url: HTTPURL, headers: [(String, String)] = [], to path: String) async throws -> Download {
        let destination = URL(fileURLWithPath: path)
        let temporary =
            destination.deletingLastPathComponent().path + "/." + destination.lastPathComponent + "."
            + RandomID.generate() + ".partial"
        let file = try await threadPool.runIfActive { try DownloadFile(path: temporary) }
        do {
            let response = try await send(
                .GET, url, headers: headers, timeout: nil,
                sink: { [threadPool] chunk in try await threadPool.runIfActive { try file.write(chunk) } })
            let (size, sha256) = try await threadPool.runIfActive { try file.finish() }
            guard (200..<300).contains(response.status) else {
                let body = try await threadPool.runIfActive { () -> [UInt8] in
                    defer { unlink(temporary) }
                    return Array(FileManager.default.contents(atPath: temporary)?.prefix(1 << 20) ?? Data())
                }
                return Download(status: response.status, size: 0, sha256: "", errorBody: body)
            }
            try await threadPool.runIfActive {
                guard rename(temporary, path) == 0 else {
                    throw Failure(message: "cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
                }
            }
            return Download(status: response.status, size: size, sha256: sha256, errorBody: [])
        } catch {
            try? await threadPool.runIfActive {
                file.close()
                unlink(temporary)
            }
            throw error
        }
    }
}

/// A file being downloaded: written in order, one call at a time, from thread-pool threads.
private final class DownloadFile: @unchecked Sendable {
    // Calls come one after another (each awaited before the next), never at once.
    private var fd: Int32
    private let path: String
    private let hasher = SHA256Hasher()
    private var size: Int64 = 0

    init(path: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        self.path = path
        guard fd >= 0 else {
            throw HTTPClient.Failure(message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    func write(_ chunk: ByteBuffer) throws {
        try chunk.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw HTTPClient.Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += written
            }
            hasher.update(bytes)
        }
        size += Int64(chunk.readableBytes)
    }

    /// Syncs and closes the file; its size and SHA-256.
    func finish() throws -> (Int64, String) {
        defer { close() }
        guard fsync(fd) == 0 else {
            throw HTTPClient.Failure(message: "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
        return (size, hasher.finalize())
    }

    func close() {
        guard fd >= 0 else { return }
        Foundation.close(fd)
        fd = -1
    }

    deinit { close() }
}
