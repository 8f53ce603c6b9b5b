import Foundation
import JobStore
import PostgresNIO

/// tus upload records (`uploads`): creating, reading, the writer's lease (one writer at a time across
/// replicas, by the database's clock), committing offsets, deleting and the expiry sweep. The bytes stay in
/// the data directory; the caller moves them.
///
/// A writer is a token, `<replica>/<random>`, unique per request: every write of a writer names it, so one
/// that lost its lease (it stalled past `writer_expires` and another took the upload over) writes nothing.
extension JobDatabase {
    /// Stores a new upload with nothing committed; false when one of that id exists already.
    @discardableResult
    /// With `object`, its bytes go into the bucket (`--objects`): the object and the multipart upload made for it.
    public func insertUpload(_ upload: ResumableUpload, object: UploadObject? = nil) async throws -> Bool {
        let json = try Self.json(upload)
        return try await !rows(
            """
            INSERT INTO uploads (id, owner, record, length, job_id, object_key, object_upload, object_job)
            VALUES (\(upload.id), \(upload.owner), \(json)::jsonb, \(upload.length), \(upload.jobID),
                \(object?.key), \(object?.uploadID), \(object?.job))
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """, "storing upload \(upload.id)", as: String.self
        ).isEmpty
    }

    /// The upload `id`; nil when there is none.
    public func loadUpload(_ id: String) async throws -> StoredUpload? {
        try await rows(
            "SELECT \(unescaped: Self.storedColumns) FROM uploads WHERE id = \(id)",
            "reading upload \(id)", as: StoredRow.self
        ).first.map(Self.storedUpload)
    }

    /// Every upload, oldest first.
    public func uploads() async throws -> [StoredUpload] {
        try await rows(
            "SELECT \(unescaped: Self.storedColumns) FROM uploads ORDER BY created_at, id",
            "listing uploads", as: StoredRow.self
        ).map(Self.storedUpload)
    }

    /// Which of `ids` are uploads.
    public func existingUploads(_ ids: [String]) async throws -> Set<String> {
        Set(
            try await rows(
                "SELECT id FROM uploads WHERE id = ANY(\(ids)::text[])", "looking up uploads", as: String.self))
    }

    /// Takes the upload's writer lease for `writer` until the database's `now()` + `ttl` seconds, unless
    /// another writer's lease is live. One statement: the row is locked while its lease is looked at, so of
    /// two requests asking at once one takes it and the other finds it held.
    public func claimUploadWriter(_ id: String, writer: String, ttl: Double) async throws -> UploadWriterClaim {
        let found = try await rows(
            """
            WITH found AS (
                SELECT id, writer, writer IS NOT NULL AND writer_expires > now() AS live FROM uploads
                WHERE id = \(id) FOR UPDATE
            ), taken AS (
                UPDATE uploads SET writer = \(writer), writer_expires = now() + make_interval(secs => \(ttl))
                WHERE id IN (SELECT id FROM found WHERE NOT live)
                RETURNING record::text, committed_offset, updated_at, writer_expires, object_key, object_upload,
                    object_job
            )
            SELECT found.live, found.writer, taken.record, taken.committed_offset, taken.updated_at,
                taken.writer_expires, taken.object_key, taken.object_upload, taken.object_job
            FROM found LEFT JOIN taken ON true
            """, "taking the writer lease of upload \(id)",
            as: (Bool, String?, String?, Int64?, Date?, Date?, String?, String?, String?).self)
        guard let (live, previous, json, offset, updatedAt, expiresAt, key, uploadID, job) = found.first else {
            return .notFound
        }
        guard !live, let json, let offset, let updatedAt, let expiresAt else { return .held(by: previous ?? "") }
        return .taken(
            try Self.storedUpload((json, offset, updatedAt, key, uploadID, job)), expiresAt: expiresAt,
            tookOverFrom: previous)
    }

    /// Extends `writer`'s lease to `now()` + `ttl` seconds; false when the lease is no longer its own.
    public func renewUploadWriter(_ id: String, writer: String, ttl: Double) async throws -> Bool {
        try await !rows(
            """
            UPDATE uploads SET writer_expires = now() + make_interval(secs => \(ttl))
            WHERE id = \(id) AND writer = \(writer)
            RETURNING id
            """, "renewing the writer lease of upload \(id)", as: String.self
        ).isEmpty
    }

    /// Records `offset` bytes as committed (they are synced), renewing the lease; false (nothing written)
    /// when the lease is no longer `writer`'s.
    public func commitUpload(_ id: String, offset: Int64, writer: String, ttl: Double) async throws -> Bool {
        try await !rows(
            """
            UPDATE uploads SET committed_offset = \(offset), updated_at = now(),
                writer_expires = now() + make_interval(secs => \(ttl))
            WHERE id = \(id) AND writer = \(writer)
            RETURNING id
            """, "committing upload \(id)", as: String.self
        ).isEmpty
    }

    /// Replaces the upload's record (its SHA-256, the job it becomes); false when the lease is no longer
    /// `writer`'s.
    public func saveUpload(_ upload: ResumableUpload, writer: String) async throws -> Bool {
        let json = try Self.json(upload)
        return try await !rows(
            """
            UPDATE uploads SET record = \(json)::jsonb, job_id = \(upload.jobID), updated_at = now()
            WHERE id = \(upload.id) AND writer = \(writer)
            RETURNING id
            """, "saving upload \(upload.id)", as: String.self
        ).isEmpty
    }

    /// Gives up `writer`'s lease, so that the next request may write at once.
    public func releaseUploadWriter(_ id: String, writer: String) async throws {
        try await run(
            "UPDATE uploads SET writer = NULL, writer_expires = NULL WHERE id = \(id) AND writer = \(writer)",
            "releasing the writer lease of upload \(id)")
    }

    /// Deletes the upload `writer` holds; false when its lease is no longer its own.
    public func deleteUpload(_ id: String, writer: String) async throws -> Bool {
        try await !rows(
            "DELETE FROM uploads WHERE id = \(id) AND writer = \(writer) RETURNING id", "deleting upload \(id)",
            as: String.self
        ).isEmpty
    }

    /// Deletes the uploads without a commit or change for `expiry` seconds (by the database's clock) that no
    /// live lease holds, and returns them, whose bytes (and objects) the caller removes. Replicas sweeping
    /// at once each get different ones.
    public func sweepUploads(expiry: Double) async throws -> [SweptUpload] {
        try await rows(
            """
            DELETE FROM uploads
            WHERE updated_at <= now() - make_interval(secs => \(expiry))
                AND (writer IS NULL OR writer_expires <= now())
            RETURNING id, object_key, object_upload, object_job
            """, "sweeping expired uploads", as: (String, String?, String?, String?).self
        ).map { SweptUpload(id: $0.0, object: Self.object($0.1, $0.2, $0.3)) }
    }

    /// The `record` column's JSON of an upload.
    static func json(_ upload: ResumableUpload) throws -> String {
        String(decoding: try JobJSON.encoder().encode(upload), as: UTF8.self)
    }

    /// The columns a `StoredUpload` is read from.
    static let storedColumns = "record::text, committed_offset, updated_at, object_key, object_upload, object_job"
    typealias StoredRow = (String, Int64, Date, String?, String?, String?)

    /// The object of a row's `object_key`, `object_upload` and `object_job`.
    static func object(_ key: String?, _ uploadID: String?, _ job: String?) -> UploadObject? {
        key.map { UploadObject(key: $0, uploadID: uploadID, job: job) }
    }

    /// A row of `storedColumns`.
    static func storedUpload(_ row: StoredRow) throws -> StoredUpload {
        do {
            let upload = try JobJSON.decoder().decode(ResumableUpload.self, from: Data(row.0.utf8))
            return StoredUpload(
                upload: upload, committedOffset: row.1, updatedAt: row.2, object: Self.object(row.3, row.4, row.5))
        } catch {
            throw DatabaseError(.queryFailed, "a stored upload record does not decode: \(error)")
        }
    }
}
