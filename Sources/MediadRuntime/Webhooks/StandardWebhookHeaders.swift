import Digests
import Foundation

/// The headers of a delivery as standardwebhooks.com specifies them, beside mediad's own
/// `Mediad-Signature`, so that any Standard Webhooks library verifies a delivery:
///
/// - `webhook-id`: the event's id, the same on every attempt and on a redelivery, so receivers deduplicate;
/// - `webhook-timestamp`: the attempt's time in Unix seconds;
/// - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
///
/// The key is the secret's bytes: for a secret of the form `whsec_<base64>`, what the base64 decodes to (as
/// the libraries read such a secret); for any other secret, its UTF-8 bytes (a library is then given
/// `whsec_` and their base64).
package struct StandardWebhookHeaders {
    let key: [UInt8]

    package init(secret: String) {
        if secret.hasPrefix("whsec_"), let decoded = Data(base64Encoded: String(secret.dropFirst(6))) {
            key = Array(decoded)
        } else {
            key = Array(secret.utf8)
        }
    }

    /// The id of the event a job's end is: one a job, since a job ends once.
    package static func eventID(ofJob id: String) -> String { "msg_\(id)" }

    package func headers(eventID: String, timestamp: Int, body: [UInt8]) -> [(String, String)] {
        let signed = Array("\(eventID).\(timestamp).".utf8) + body
        let signature = Data(HMAC.sha256(key: key, message: signed)).base64EncodedString()
        return [
            ("webhook-id", eventID), ("webhook-timestamp", String(timestamp)), ("webhook-signature", "v1,\(signature)"),
        ]
    }
}
