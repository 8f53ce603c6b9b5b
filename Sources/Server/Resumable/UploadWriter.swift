import Foundation
import JobStore
import MediadHTTP
import NIOHTTP1
import NIOPosix

/// One request's hold on a tus upload, whichever `UploadRecords` keeps it: the data file open for
/// appending under its `flock(2)` (`ResumableWriter`, the `BlockSink` that chunks stream into), and, with
/// `--database`, the upload's writer lease there (`UploadWriterLease`), which commits each offset, stores the
/// record and is given back on `close`. With `--objects` too, the bytes go into the bucket
/// (`UploadObjectWriter`): the data file is then this request's scratch, removed on `close`.
final class UploadWriter: Sendable {
    /// The data file; bytes are appended to it directly.
    let file: ResumableWriter
    /// The upload's object in the bucket, when its bytes go there.
    let object: UploadObjectWriter?
    private let lease: UploadWriterLease?
    private let store: JobStore
    private let threadPool: NIOThreadPool

    init(
        file: ResumableWriter, lease: UploadWriterLease? = nil, object: UploadObjectWriter? = nil, store: JobStore,
        threadPool: NIOThreadPool
    ) {
        self.file = file
        self.lease = lease
        self.object = object
        self.store = store
        self.threadPool = threadPool
    }

    /// The record as of opening (or the last `save`).
    var upload: ResumableUpload { file.upload }
    /// Bytes in the data file: the offset the next chunk starts at.
    var offset: Int64 { file.offset }
    /// Whether the bytes are still here (not yet moved into a job).
    var hasData: Bool { file.hasData }

    /// Makes the bytes written so far durable (in the bucket and the database, with `--objects`), then the
    /// offset the one a `HEAD` reports (on any replica).
    func commit() async throws {
        if let object, let lease {
            try await object.commit(file, lease: lease, threadPool: threadPool)
            return
        }
        try await threadPool.runIfActive { [file] in try file.commit() }
        try await lease?.commit(offset: file.offset)
    }

    /// Drops the chunk under way (cut back to where it started, never below the committed offset).
    func rollback() async throws {
        await object?.rollback()
        try await threadPool.runIfActive { [file] in try file.rollback() }
    }

    /// The complete upload as a file a job can take, its SHA-256 recorded the first time. With `--objects`
    /// its multipart upload is completed and the file is in the bucket alone (its `path` is empty).
    func completedFile() async throws -> UploadedFile {
        if let object, let lease {
            guard let sha256 = upload.sha256 else {
                throw ServiceError(.internalServerError, "internal_error", "upload \(upload.id) has no SHA-256")
            }
            try await object.complete(lease: lease)
            return UploadedFile(path: "", size: upload.length, sha256: sha256)
        }
        let hashed = upload.sha256 != nil
        let completed = try await threadPool.runIfActive { [file] in try file.completedFile() }
        if !hashed { try await lease?.save(file.upload) }
        return completed
    }

    /// Replaces the record.
    func save(_ upload: ResumableUpload) async throws {
        try await lease?.save(upload)
        try await threadPool.runIfActive { [file] in try file.save(upload) }
    }

    /// Records that the upload's object is the input of the job just stored (`--objects`).
    func handOver() async throws {
        guard object != nil else { return }
        try await lease?.handOverObject()
    }

    /// Removes the upload, its record and its bytes (its multipart upload and object too).
    func delete() async throws {
        try await lease?.delete()
        let id = upload.id
        try await threadPool.runIfActive { [store] in try store.deleteResumable(id: id) }
        try await object?.remove()
    }

    /// Closes the data file and gives the upload up for the next request. Does nothing the second time.
    /// The scratch data file of an upload into the bucket is removed first.
    func close() async {
        file.close()
        if object != nil {
            let id = upload.id
            try? await threadPool.runIfActive { [store] in try store.deleteResumable(id: id) }
        }
        await lease?.release()
    }
}
