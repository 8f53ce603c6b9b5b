import Digests

/// `Mediad-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the webhook secret.
///
/// The timestamp is inside the signed text, so a receiver that rejects old timestamps cannot be replayed
/// an old delivery; `v1` names the scheme so that another can be added beside it later.
package enum WebhookSignature {
    package static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        let signature = HMAC.sha256(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
        return "t=\(timestamp),v1=\(Hex.lowercase(signature))"
    }
}
