import Foundation
import JobStore
import MediadHTTP
import NIOHTTP1

/// A request's `Idempotency-Key`, scoped to its caller: the same key from two API tokens names two
/// different mappings (without tokens, every client is one caller).
struct IdempotencyKey: Sendable {
    /// How long a key keeps answering with its job.
    static let lifetime: TimeInterval = 24 * 3600

    /// The store's name for the caller's key.
    let digest: String

    /// Nil when the request has no key; 400 `invalid_request` for a key that is empty, over 255 bytes,
    /// not printable ASCII, or given twice.
    init?(_ headers: HTTPHeaders, owner: String?) throws {
        let values = headers["idempotency-key"]
        guard let value = values.first else { return nil }
        guard values.count == 1 else {
            throw ServiceError.invalidRequest("send one Idempotency-Key header, not several")
        }
        guard (1...255).contains(value.utf8.count), value.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) else {
            throw ServiceError.invalidRequest("the Idempotency-Key must be 1 to 255 printable ASCII characters")
        }
        digest = JobStore.idempotencyDigest(owner: owner ?? "", key: value)
    }
}
