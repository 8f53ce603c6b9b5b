import Foundation
import JobStore
import MediaJobs
import Testing

@testable import MediadRuntime

/// The in-memory accounting behind `--quota`, upload reservations and `--max-pending-uploads`.
@Suite struct StorageLedgerTests {
    static let watermark = DiskWatermark(path: "/", minimumFreeBytes: 100)

    func record(owner: String?, input: Int64, output: Int64 = 0) -> JobRecord {
        var record = JobRecord(
            id: JobStore.newID(), createdAt: Date(timeIntervalSince1970: 1_795_000_000),
            options: try! JobKind.remux.options(parsing: ["format": "mkv"]),
            inputs: [FileDigest(name: "input", size: input, sha256: "")], owner: owner)
        if output > 0 {
            record.outputs = [
                JobOutput(FileDigest(name: "output.mkv", size: output, sha256: ""), contentType: "", url: "")
            ]
        }
        return record
    }

    func upload(_ owner: String?, _ length: Int64) -> ResumableUpload {
        ResumableUpload(id: JobStore.newID(), length: length, metadata: [:], owner: owner, createdAt: Date())
    }

    @Test func theIndexKeepsWhatEachOwnerStores() {
        let index = JobIndex()
        var job = record(owner: "alice", input: 1000)
        index[job.id] = job
        index[record(owner: nil, input: 7).id] = record(owner: nil, input: 7)
        #expect(index.storedBytes(of: "alice") == 1000)
        job.outputs = record(owner: "alice", input: 0, output: 500).outputs
        index[job.id] = job
        #expect(index.storedBytes(of: "alice") == 1500)
        #expect(index.storedBytes(of: nil) == 7)
        index[job.id] = nil
        #expect(index.storedBytes(of: "alice") == 0)
    }

    /// Requests under way hold what they receive, so two at once cannot both take the last bytes.
    @Test func holdsCountUntilReleased() throws {
        let index = JobIndex()
        let ledger = StorageLedger(limits: .init(quota: 1000), jobs: index, watermark: Self.watermark)
        let stored = record(owner: "alice", input: 400)
        index[stored.id] = stored
        let first = try #require(try ledger.hold(500, for: "alice"))
        #expect(throws: StoreError.self) { try ledger.hold(200, for: "alice") }
        #expect(try ledger.hold(1000, for: "bob") != nil)
        #expect(throws: StoreError.self) { try first.cover(700) }
        first.release()
        first.release()
        #expect(ledger.stored(by: "alice") == 400)
        #expect(ledger.remaining(for: "alice") == 600)
        #expect(ledger.refusal(ofOutputs: 600, of: stored) == nil)
        #expect(ledger.refusal(ofOutputs: 601, of: stored)?.code == "quota_exceeded")
    }

    @Test func uploadsArePromisedRoomAndCountedPerOwner() throws {
        let ledger = StorageLedger(
            limits: .init(quota: 0, maxPendingUploads: 2), jobs: JobIndex(), watermark: Self.watermark)
        let first = upload("alice", 400)
        try ledger.admitUpload(first, freeBytes: 1000)
        #expect(ledger.reservedUploadBytes() == 400)
        #expect(ledger.reservedUploadBytes(besides: first.id) == 0)
        do {
            try ledger.admitUpload(upload("bob", 501), freeBytes: 1000)
            Issue.record("501 bytes fitted beside 400 promised on 1000 free keeping 100")
        } catch let error as StoreError {
            #expect(error.code == "insufficient_storage")
        }
        try ledger.admitUpload(upload("alice", 100), freeBytes: 1000)
        do {
            try ledger.admitUpload(upload("alice", 1), freeBytes: 10_000)
            Issue.record("a third unfinished upload was admitted")
        } catch let error as StoreError {
            #expect(error.code == "too_many_uploads")
        }
        ledger.uploadProgressed(first, offset: 400)
        #expect(ledger.reservedUploadBytes() == 100)
        try ledger.admitUpload(upload("alice", 1), freeBytes: 10_000)
        ledger.refreshUploads { id in
            id == first.id ? ResumableUploadState(upload: first, offset: 400, lastActivity: Date()) : nil
        }
        #expect(ledger.reservedUploadBytes() == 0, "uploads gone from the store are forgotten")
        ledger.forgetUpload(first.id)
        #expect(ledger.stored(by: "alice") == 0)
    }
}
