import Foundation
import JobDatabase
import JobStore
import Testing
import TestSupport

/// tus upload records in `uploads` on a real PostgreSQL: creation, the committed offset, the writer lease
/// (one writer, fenced writes, taken over once expired by the database's clock), deletion and the sweep.
/// A lease of TTL 0 has expired by the next statement; one of 300 s is live for the whole test.
@Suite(.postgres, .timeLimit(.minutes(5))) struct UploadRecordsTests {
    static func upload(owner: String? = "alice") -> ResumableUpload {
        ResumableUpload(
            id: JobStore.newID(), length: 1000, metadata: ["kind": "remux", "filename": "a b.mp4"], owner: owner,
            createdAt: Date(timeIntervalSince1970: 1_795_000_000.123))
    }

    /// The lease taken, or a failed expectation.
    static func taken(_ claim: UploadWriterClaim) throws -> StoredUpload {
        guard case .taken(let stored, _, _) = claim else {
            Issue.record("the lease was not taken: \(claim)")
            throw CancellationError()
        }
        return stored
    }

    @Test func anUploadIsStoredOnceAndReadBack() async throws {
        try await PostgresSuite.withDatabase("uploads_create") { database in
            let upload = Self.upload()
            #expect(try await database.insertUpload(upload))
            #expect(try await database.insertUpload(upload) == false, "the id is taken")
            let stored = try #require(try await database.loadUpload(upload.id))
            #expect(stored.upload == upload)
            #expect(stored.committedOffset == 0)
            #expect(try await database.loadUpload(JobStore.newID()) == nil)
            let other = Self.upload(owner: nil)
            try await database.insertUpload(other)
            #expect(try await database.uploads().map(\.upload.id).sorted() == [upload.id, other.id].sorted())
            #expect(try await database.existingUploads([upload.id, "absent"]) == [upload.id])
        }
    }

    /// The writer commits offsets and the record; a second writer finds the upload held; once released,
    /// it takes it.
    @Test func oneWriterAtATimeCommitsTheOffset() async throws {
        try await PostgresSuite.withDatabase("uploads_writer") { database in
            let upload = Self.upload()
            try await database.insertUpload(upload)
            _ = try Self.taken(try await database.claimUploadWriter(upload.id, writer: "r1/a", ttl: 300))
            #expect(try await database.claimUploadWriter(upload.id, writer: "r2/b", ttl: 300) == .held(by: "r1/a"))
            #expect(try await database.claimUploadWriter(upload.id, writer: "r1/c", ttl: 300) == .held(by: "r1/a"))
            #expect(try await database.claimUploadWriter("absent", writer: "r2/b", ttl: 300) == .notFound)

            #expect(try await database.commitUpload(upload.id, offset: 400, writer: "r1/a", ttl: 300))
            #expect(try await database.commitUpload(upload.id, offset: 900, writer: "r2/b", ttl: 300) == false)
            var hashed = upload
            hashed.sha256 = String(repeating: "ab", count: 32)
            hashed.jobID = JobStore.newID()
            #expect(try await database.saveUpload(hashed, writer: "r1/a"))
            #expect(try await database.renewUploadWriter(upload.id, writer: "r1/a", ttl: 300))
            #expect(try await database.renewUploadWriter(upload.id, writer: "r2/b", ttl: 300) == false)
            try await database.releaseUploadWriter(upload.id, writer: "r1/a")

            let stored = try Self.taken(try await database.claimUploadWriter(upload.id, writer: "r2/b", ttl: 300))
            #expect(stored.committedOffset == 400)
            #expect(stored.upload == hashed)
            #expect(try await database.renewUploadWriter(upload.id, writer: "r1/a", ttl: 300) == false)
        }
    }

    /// A writer whose lease expired (it died) loses the upload to the next, which learns whose lease it took
    /// over; the first one's late writes change nothing.
    @Test func anExpiredWriterLeaseIsTakenOver() async throws {
        try await PostgresSuite.withDatabase("uploads_takeover") { database in
            let upload = Self.upload()
            try await database.insertUpload(upload)
            _ = try Self.taken(try await database.claimUploadWriter(upload.id, writer: "r1/a", ttl: 300))
            #expect(try await database.commitUpload(upload.id, offset: 250, writer: "r1/a", ttl: 0))
            let claim = try await database.claimUploadWriter(upload.id, writer: "r2/b", ttl: 300)
            guard case .taken(let stored, _, let previous) = claim else {
                Issue.record("the expired lease was not taken over: \(claim)")
                return
            }
            #expect(previous == "r1/a")
            #expect(stored.committedOffset == 250)
            #expect(try await database.commitUpload(upload.id, offset: 600, writer: "r1/a", ttl: 300) == false)
            #expect(try await database.saveUpload(upload, writer: "r1/a") == false)
            #expect(try await database.deleteUpload(upload.id, writer: "r1/a") == false)
            #expect(try await database.loadUpload(upload.id)?.committedOffset == 250)
        }
    }

    @Test func onlyTheWriterDeletesAnUpload() async throws {
        try await PostgresSuite.withDatabase("uploads_delete") { database in
            let upload = Self.upload()
            try await database.insertUpload(upload)
            #expect(try await database.deleteUpload(upload.id, writer: "r1/a") == false, "no lease, no deletion")
            _ = try Self.taken(try await database.claimUploadWriter(upload.id, writer: "r1/a", ttl: 300))
            #expect(try await database.deleteUpload(upload.id, writer: "r1/a"))
            #expect(try await database.loadUpload(upload.id) == nil)
            #expect(try await database.claimUploadWriter(upload.id, writer: "r1/a", ttl: 300) == .notFound)
        }
    }

    /// The sweep deletes the uploads idle for the expiry that no live lease holds, and returns their ids
    /// once: a second sweep (another replica's) gets none of them.
    @Test func theSweepTakesIdleUploadsWithoutALiveWriter() async throws {
        try await PostgresSuite.withDatabase("uploads_sweep") { database in
            let idle = Self.upload()
            let written = Self.upload()
            let abandoned = Self.upload()
            for upload in [idle, written, abandoned] { try await database.insertUpload(upload) }
            #expect(try await database.sweepUploads(expiry: 3600).isEmpty, "nothing is an hour old")
            _ = try Self.taken(try await database.claimUploadWriter(written.id, writer: "r1/a", ttl: 300))
            _ = try Self.taken(try await database.claimUploadWriter(abandoned.id, writer: "r2/b", ttl: 0))

            let swept = try await database.sweepUploads(expiry: 0)
            #expect(Set(swept.map(\.id)) == [idle.id, abandoned.id])
            #expect(try await database.sweepUploads(expiry: 0).isEmpty, "the one being written to stays")
            #expect(try await database.uploads().map(\.upload.id) == [written.id])
        }
    }
}
