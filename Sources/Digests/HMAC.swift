import COpenSSL

/// HMAC-SHA256 (RFC 2104), by libcrypto: what webhook deliveries are signed with, under mediad's own
/// `Mediad-Signature` scheme and under Standard Webhooks'.
package enum HMAC {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    package static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                COpenSSL.HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &digest,
                    &length)
            }
        }
        precondition(result != nil, "HMAC-SHA256 failed")
        return Array(digest.prefix(Int(length)))
    }
}
