import Foundation
import JobStore
import PostgresNIO

/// The progress of tus uploads whose bytes go into the bucket (`--objects`): the parts stored, the tail
/// that does not yet fill a part, and the SHA-256 midstate after the parts. Read by the writer that takes
/// the upload, on whichever replica, and written with each commit in one statement guarded by its lease,
/// so that the offset, the parts, the tail and the midstate always agree.
extension JobDatabase {
    /// Upload `id`'s parts (in number order), tail and midstate; nil when there is no such upload.
    public func uploadProgress(_ id: String) async throws -> UploadProgress? {
        let found = try await rows(
            "SELECT tail, hash_state FROM uploads WHERE id = \(id)", "reading the progress of upload \(id)",
            as: (ByteBuffer, String?).self)
        guard let (row, midstate) = found.first else { return nil }
        var tail = row
        let parts = try await rows(
            "SELECT number, etag, size FROM upload_parts WHERE upload_id = \(id) ORDER BY number",
            "reading the parts of upload \(id)", as: (Int32, String, Int64).self
        ).map { StoredPart(number: Int($0.0), etag: $0.1, size: $0.2) }
        return UploadProgress(parts: parts, tail: tail.readBytes(length: tail.readableBytes) ?? [], midstate: midstate)
    }

    /// Records `offset` bytes as committed, with the parts stored since the last commit (a part of a number
    /// already recorded replaces it), the tail past them and the midstate after them, and renews the
    /// lease; with `record`, replaces the upload's record too. False (nothing written) when the lease is no
    /// longer `writer`'s.
    public func commitUploadProgress(
        _ id: String, offset: Int64, parts: [StoredPart], tail: [UInt8], midstate: String?,
        record: ResumableUpload?, writer: String, ttl: Double
    ) async throws -> Bool {
        let json = try record.map(Self.json)
        return try await !rows(
            """
            WITH owned AS (
                UPDATE uploads SET committed_offset = \(offset), tail = \(ByteBuffer(bytes: tail)),
                    hash_state = \(midstate), record = coalesce(\(json)::jsonb, record), updated_at = now(),
                    writer_expires = now() + make_interval(secs => \(ttl))
                WHERE id = \(id) AND writer = \(writer)
                RETURNING id
            ), stored AS (
                INSERT INTO upload_parts (upload_id, number, etag, size)
                SELECT owned.id, part.number, part.etag, part.size FROM owned,
                    unnest(\(parts.map { Int64($0.number) })::bigint[], \(parts.map(\.etag))::text[],
                        \(parts.map(\.size))::bigint[]) AS part(number, etag, size)
                ON CONFLICT (upload_id, number) DO UPDATE SET etag = excluded.etag, size = excluded.size
                RETURNING number
            )
            SELECT id FROM owned
            """, "committing upload \(id)", as: String.self
        ).isEmpty
    }

    /// Records that upload `id`'s multipart upload is completed (its object exists); false when the lease
    /// is no longer `writer`'s.
    public func completeUploadObject(_ id: String, writer: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE uploads SET object_upload = NULL, updated_at = now() WHERE id = \(id) AND writer = \(writer)
            RETURNING id
            """, "recording the object of upload \(id)", as: String.self
        ).isEmpty
    }

    /// Records that upload `id`'s object is the input of its job now, no longer the upload's to remove;
    /// false when the lease is no longer `writer`'s.
    public func handOverUploadObject(_ id: String, writer: String) async throws -> Bool {
        try await !rows(
            """
            UPDATE uploads SET object_key = NULL, object_upload = NULL, updated_at = now()
            WHERE id = \(id) AND writer = \(writer)
            RETURNING id
            """, "handing the object of upload \(id) to its job", as: String.self
        ).isEmpty
    }
}

/// A part of an upload's multipart upload, as stored: its number, the ETag the store gave it, its size.
public struct StoredPart: Sendable, Equatable {
    public var number: Int
    public var etag: String
    public var size: Int64

    public init(number: Int, etag: String, size: Int64) {
        self.number = number
        self.etag = etag
        self.size = size
    }
}

/// What an upload into the bucket holds besides its parts' bytes.
public struct UploadProgress: Sendable, Equatable {
    /// The parts stored, in number order.
    public var parts: [StoredPart]
    /// The committed bytes past the last part (fewer than a part's size).
    public var tail: [UInt8]
    /// The SHA-256 midstate after the parts (`ResumableSHA256.Midstate`'s text); nil before the first.
    public var midstate: String?
}
