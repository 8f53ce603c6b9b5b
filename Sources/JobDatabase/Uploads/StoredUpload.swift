import Foundation
import JobStore

/// A tus upload as the `uploads` table holds it: the record, the bytes committed (synced to the data
/// directory and acknowledged to the client: what a `HEAD` reports), and when it last changed.
public struct StoredUpload: Sendable, Equatable {
    public var upload: ResumableUpload
    public var committedOffset: Int64
    /// The last committed chunk or record change, by the database's clock: the start of its expiry.
    public var updatedAt: Date
    /// With `--objects`, the object its bytes go into; nil once that object is the input of the job the
    /// upload became (or without `--objects`).
    public var object: UploadObject?
}

/// The object a tus upload's bytes go into (`--objects`), as its row names it.
public struct UploadObject: Sendable, Equatable {
    /// The object's key, relative to the bucket's prefix.
    public var key: String
    /// The multipart upload the parts go into; nil once it is completed.
    public var uploadID: String?
    /// The job whose input the object is, chosen when the upload was made (its metadata names a kind).
    public var job: String?

    public init(key: String, uploadID: String?, job: String?) {
        self.key = key
        self.uploadID = uploadID
        self.job = job
    }
}

/// An upload the expiry sweep deleted: its bytes (and its object, if any) are the caller's to remove.
public struct SweptUpload: Sendable, Equatable {
    public var id: String
    public var object: UploadObject?
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
