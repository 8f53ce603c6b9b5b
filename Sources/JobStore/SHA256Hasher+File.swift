import Digests
import Foundation

extension SHA256Hasher {
    /// Size and SHA-256 of a file, read in 1 MiB chunks so memory stays flat for multi-gigabyte files.
    /// Blocking I/O: call it on a thread pool. Fails with the store's `io_error`.
    public static func hexDigest(ofFileAt path: String) throws -> (size: Int64, sha256: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("cannot open", path) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        let hasher = SHA256Hasher()
        var size: Int64 = 0
        while true {
            let count = try FileIO.read(fd, into: buffer, path: path)
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, hasher.finalize())
    }
}
