import Foundation

/// An incremental SHA-256 digest (libcrypto's EVP), so a file can be hashed as its bytes pass by —
/// uploads while they arrive, outputs in fixed-size chunks — without holding it in memory.
///
/// One owner, one thread at a time (see `MessageDigest`).
public final class SHA256Hasher {
    private let digest = MessageDigest(.sha256)

    public init() {}

    /// Adds bytes to the digest. Not allowed after `finalize()`.
    public func update(_ bytes: UnsafeRawBufferPointer) { digest.update(bytes) }

    /// The digest of everything added, as 64 lowercase hex digits. Call it once.
    public func finalize() -> String { Self.hex(digest.finalize()) }

    /// Size and SHA-256 of a file, read in 1 MiB chunks so memory stays flat for multi-gigabyte files.
    /// Blocking I/O: call it on a thread pool.
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

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
