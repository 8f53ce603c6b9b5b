import COpenSSL

/// Comparisons whose time does not depend on where two secrets differ (libcrypto's `CRYPTO_memcmp`), so
/// that timing a refusal does not tell a guesser how much of a guess was right.
package enum ConstantTime {
    /// True when `a` and `b` hold the same bytes. Only the lengths are compared in the open: compare digests
    /// of secrets (of one fixed length), not the secrets themselves.
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }
}
