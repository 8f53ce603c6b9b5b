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
    public func finalize() -> String { Hex.lowercase(digest.finalize()) }
}
