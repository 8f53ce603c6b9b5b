import COpenSSL

/// `Mediad-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the webhook secret.
///
/// The timestamp is inside the signed text, so a receiver that rejects old timestamps cannot be replayed
/// an old delivery; `v1` names the scheme so that another can be added beside it later.
package enum WebhookSignature {
    package static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(hmacSHA256(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body))"
    }

    /// Lowercase hex of HMAC-SHA256, by libcrypto.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(
            hmacSHA256Bytes(key: key, message: message).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// HMAC-SHA256, by libcrypto.
    package static func hmacSHA256Bytes(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &digest,
                    &length)
            }
        }
        precondition(result != nil, "HMAC-SHA256 failed")
        return Array(digest.prefix(Int(length)))
    }
}
