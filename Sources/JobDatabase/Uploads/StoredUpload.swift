import Foundation
import JobStore

/// A tus upload as the `uploads` table holds it: the record, the bytes committed (synced to the data
/// directory and acknowledged to the client: what a `HEAD` reports), and when it last changed.
public struct StoredUpload: Sendable, Equatable {
    public var upload: ResumableUpload
    public var committedOffset: Int64
    /// The last committed chunk or record change, by the database's clock: the start of its expiry.
    public var updatedAt: Date
}

/// What asking for an upload's writer lease found.
public enum UploadWriterClaim: Sendable, Equatable {
    /// The lease is the caller's until `expiresAt` (database clock). `tookOverFrom` names the writer
    /// whose lease had expired (it died or stalled): bytes past the committed offset are not to be kept.
    case taken(StoredUpload, expiresAt: Date, tookOverFrom: String?)
    /// Another writer holds a live lease.
    case held(by: String)
    /// There is no upload of that id.
    case notFound
}
