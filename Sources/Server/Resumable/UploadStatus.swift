import Foundation
import JobStore

/// `GET /uploads/{id}`'s body.
struct UploadStatus: Encodable {
    var id: String
    var offset: Int64
    var length: Int64
    var metadata: [String: String]
    var expiresAt: String
    var sha256: String?
    var job: String?

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

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(offset, forKey: .offset)
        try container.encode(length, forKey: .length)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(job, forKey: .job)
    }
}
