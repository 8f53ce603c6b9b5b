import Foundation
import JobDatabase
import JobStore
import Logging
import Synchronization

/// A request's writer lease on a tus upload in the replicas' database: taken by `DatabaseUploadRecords.open`,
/// renewed every third of its TTL while the request lasts, shown with every write (a commit, the record),
/// and given back on `release`.
///
/// A lease that could not be renewed for its TTL (the database stayed away, or another writer took the
/// upload over after this one stalled) revokes the data file's writer: no byte is appended after another
/// replica may have cut the file back to the committed offset.
final class UploadWriterLease: Sendable {
    let id: String
    /// `<replica>/<random>`: this request, in the `writer` column.
    let writer: String
    private let database: JobDatabase
    private let ttl: TimeInterval
    private let renewal: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let released = Atomic(false)

    init(id: String, writer: String, database: JobDatabase, ttl: TimeInterval) {
        self.id = id
        self.writer = writer
        self.database = database
        self.ttl = ttl
    }

    /// A lease dropped without `release` stops renewing; it expires after its TTL.
    deinit { renewal.withLock { $0?.cancel() } }

    /// Renews the lease until `release`; revokes `file` once it may have been lost.
    func keep(_ file: ResumableWriter, logger: Logger) {
        let task = Task { [id, writer, database, ttl] in
            var renewed = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(ttl / 3))
                guard !Task.isCancelled else { return }
                let held = try? await JobDatabase.within(JobDatabase.statementDeadline) {
                    try await database.renewUploadWriter(id, writer: writer, ttl: ttl)
                }
                if held == true {
                    renewed = .now
                } else if held == false || ContinuousClock.now - renewed >= .seconds(ttl) {
                    logger.warning("upload writer lease lost", metadata: ["upload_id": .string(id)])
                    file.revoke()
                    return
                }
            }
        }
        renewal.withLock { $0 = task }
    }

    /// Records `offset` bytes (synced) as committed.
    func commit(offset: Int64) async throws {
        try await holding { [id, writer, ttl] in
            try await $0.commitUpload(id, offset: offset, writer: writer, ttl: ttl)
        }
    }

    /// Stores the record.
    func save(_ upload: ResumableUpload) async throws {
        try await holding { [writer] in try await $0.saveUpload(upload, writer: writer) }
    }

    /// Deletes the record (the caller removes the bytes).
    func delete() async throws {
        try await holding { [id, writer] in try await $0.deleteUpload(id, writer: writer) }
        released.store(true, ordering: .relaxed)
    }

    /// Stops renewing and gives the lease back; a lease that cannot be given back expires. Does nothing
    /// the second time.
    func release() async {
        renewal.withLock { $0?.cancel() }
        guard !released.exchange(true, ordering: .relaxed) else { return }
        _ = try? await JobDatabase.within(JobDatabase.statementDeadline) { [database, id, writer] in
            try await database.releaseUploadWriter(id, writer: writer)
        }
    }

    /// Runs a write that applies only while the lease is this writer's: `upload_locked` when it is not any
    /// more, `store_unavailable` when the database does not answer.
    private func holding(_ write: @escaping @Sendable (JobDatabase) async throws -> Bool) async throws {
        let applied = try await DatabaseUploadRecords.call { [database] in try await write(database) }
        guard applied else {
            throw StoreError(
                code: .uploadLocked,
                message: "another request took this upload over while this one stalled; retry from HEAD")
        }
    }
}

extension UploadWriterLease {
    /// Records a commit of an upload into the bucket: `offset`, the parts stored since the last one, the
    /// tail, the midstate and, with `record`, the upload's record.
    func commit(
        offset: Int64, parts: [StoredPart], tail: [UInt8], midstate: String?, record: ResumableUpload?
    ) async throws {
        try await holding { [id, writer, ttl] in
            try await $0.commitUploadProgress(
                id, offset: offset, parts: parts, tail: tail, midstate: midstate, record: record, writer: writer,
                ttl: ttl)
        }
    }

    /// Records that the upload's multipart upload is completed.
    func completeObject() async throws {
        try await holding { [id, writer] in try await $0.completeUploadObject(id, writer: writer) }
    }

    /// Records that the upload's object is its job's input now.
    func handOverObject() async throws {
        try await holding { [id, writer] in try await $0.handOverUploadObject(id, writer: writer) }
    }
}
