import Foundation

/// What the store keeps of a tus upload besides its bytes (`resumable/<id>/upload.json`): its declared
/// length, its metadata, who made it, and what became of it once complete.
///
/// The offset is not in the record: it is the size of the upload's `data` file, which grows with every
/// `PATCH` and is synced before the `PATCH` is answered, so it is as durable as the bytes it counts.
public struct ResumableUpload: Codable, Sendable, Equatable {
    public var id: String
    /// `Upload-Length`: the bytes the upload will hold when complete.
    public var length: Int64
    /// `Upload-Metadata`, decoded: key → UTF-8 value (an empty string for a key without a value).
    public var metadata: [String: String]
    /// The API token's name that created it; nil on a server without tokens.
    public var owner: String?
    public var createdAt: Date
    /// The SHA-256 of the whole upload, set once its last byte is in.
    public var sha256: String?
    /// The job the upload becomes (metadata naming a `kind`), chosen before that job is stored so that a
    /// retried completion finds the job instead of making a second one.
    public var jobID: String?

    public init(id: String, length: Int64, metadata: [String: String], owner: String?, createdAt: Date) {
        self.id = id
        self.length = length
        self.metadata = metadata
        self.owner = owner
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, length, metadata, owner, sha256
        case createdAt = "created_at"
        case jobID = "job_id"
    }
}
