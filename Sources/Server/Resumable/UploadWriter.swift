import Foundation
import JobStore
import NIOPosix

/// One request's hold on a tus upload, whichever `UploadRecords` keeps it: the data file open for
/// appending under its `flock(2)` (`ResumableWriter`, the `BlockSink` that chunks stream into), and, with
/// `--database`, the upload's writer lease there (`UploadWriterLease`), which commits each offset, stores the
/// record and is given back on `close`.
final class UploadWriter: Sendable {
    /// The data file; bytes are appended to it directly.
    let file: ResumableWriter
    private let lease: UploadWriterLease?
    private let store: JobStore
    private let threadPool: NIOThreadPool

    init(file: ResumableWriter, lease: UploadWriterLease? = nil, store: JobStore, threadPool: NIOThreadPool) {
        self.file = file
        self.lease = lease
        self.store = store
        self.threadPool = threadPool
    }

    /// The record as of opening (or the last `save`).
    var upload: ResumableUpload { file.upload }
    /// Bytes in the data file: the offset the next chunk starts at.
    var offset: Int64 { file.offset }
    /// Whether the bytes are still here (not yet moved into a job).
    var hasData: Bool { file.hasData }

    /// Makes the bytes written so far durable, then the offset the one a `HEAD` reports (on any replica).
    func commit() async throws {
        try await threadPool.runIfActive { [file] in try file.commit() }
        try await lease?.commit(offset: file.offset)
    }

    /// Drops the chunk under way (cut back to where it started, never below the committed offset).
    func rollback() async throws {
        try await threadPool.runIfActive { [file] in try file.rollback() }
    }

    /// The complete upload as a file a job can take, its SHA-256 recorded the first time.
    func completedFile() async throws -> UploadedFile {
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

    /// Removes the upload, its record and its bytes.
    func delete() async throws {
        try await lease?.delete()
        let id = upload.id
        try await threadPool.runIfActive { [store] in try store.deleteResumable(id: id) }
    }

    /// Closes the data file and gives the upload up for the next request. Does nothing the second time.
    func close() async {
        file.close()
        await lease?.release()
    }
}
