import Foundation
import JobStore
import MediadFoundation

/// `GET /uploads/{id}`'s body.
struct UploadStatus: Encodable {
    var id: String
    var offset: Int64
    var length: Int64
    var metadata: [String: String]
    var expiresAt: String
    /// Always present, null until the upload is complete (`sha256`) or a job took it (`job`).
    @ExplicitNull var sha256: String?
    @ExplicitNull var job: String?

    init(_ state: ResumableUploadState, expiry: TimeInterval) {
        id = state.upload.id
        offset = state.offset
        length = state.upload.length
        metadata = state.upload.metadata
        expiresAt = JobJSON.rfc3339(state.expiresAt(after: expiry))
        sha256 = state.upload.sha256
        job = state.upload.jobID.map { "/jobs/\($0)" }
    }

    enum CodingKeys: String, CodingKey {
        case id, offset, length, metadata, sha256, job
        case expiresAt = "expires_at"
    }
}
