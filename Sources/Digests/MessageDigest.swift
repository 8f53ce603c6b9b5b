import COpenSSL

/// An incremental message digest (libcrypto's EVP) of one of the algorithms mediad computes: SHA-256 for
/// uploads, outputs and ETags; SHA-1 and MD5 besides it for the checksums tus clients send with a chunk
/// (`Upload-Checksum`).
///
/// One owner, one thread at a time: the class owns its `EVP_MD_CTX` and frees it in `deinit`.
public final class MessageDigest {
    /// The algorithms, by the names tus uses for them (`Tus-Checksum-Algorithm`).
    public enum Algorithm: String, CaseIterable, Sendable {
        case sha1, md5, sha256
    }

    private let context: OpaquePointer
    private var finalized = false

    public init(_ algorithm: Algorithm) {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        let method =
            switch algorithm {
            case .sha1: EVP_sha1()
            case .md5: EVP_md5()
            case .sha256: EVP_sha256()
            }
        guard EVP_DigestInit_ex(context, method, nil) == 1 else {
            fatalError("EVP_DigestInit_ex(\(algorithm)) failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the digest. Not allowed after `finalize()`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finalized, "MessageDigest used after finalize()")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { fatalError("EVP_DigestUpdate failed") }
    }

    /// The digest of everything added. Call it once.
    public func finalize() -> [UInt8] {
        precondition(!finalized, "MessageDigest finalized twice")
        finalized = true
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { fatalError("EVP_DigestFinal_ex failed") }
        return Array(digest.prefix(Int(length)))
    }
}
