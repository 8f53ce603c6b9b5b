import COpenSSL
import Foundation

/// An incremental SHA-256 digest (libcrypto's EVP), so a file can be hashed as its bytes pass by —
/// uploads while they arrive, outputs in fixed-size chunks — without holding it in memory.
///
/// One owner, one thread at a time: the class owns its `EVP_MD_CTX` and frees it in `deinit`.
public final class SHA256Hasher {
    private let context: OpaquePointer
    private var finalized = false

    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("EVP_DigestInit_ex(SHA-256) failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the digest. Not allowed after `finalize()`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finalized, "SHA256Hasher used after finalize()")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { fatalError("EVP_DigestUpdate failed") }
    }

    /// The digest of everything added, as 64 lowercase hex digits. Call it once.
    public func finalize() -> String {
        precondition(!finalized, "SHA256Hasher finalized twice")
        finalized = true
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { fatalError("EVP_DigestFinal_ex failed") }
        return Self.hex(digest.prefix(Int(length)))
    }

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
