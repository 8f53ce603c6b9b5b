import Foundation
import JobStore
import NIOPosix

/// Where tus uploads' records are kept, chosen once at start: beside their bytes in the data directory
/// (`FileUploadRecords`, a server of its own or a shared store), or in the replicas' PostgreSQL database
/// (`DatabaseUploadRecords`, `--database`). The bytes are in the data directory either way; the handlers
/// use this and `UploadWriter` and never ask which it is.
protocol UploadRecords: Sendable {
    /// Stores a new, empty upload.
    func create(_ upload: ResumableUpload) async throws
    /// The upload as it is now, without taking it for writing; nil when there is none.
    func state(_ id: String) async throws -> ResumableUploadState?
    /// Every upload, for the storage ledger's accounting.
    func states() async throws -> [ResumableUploadState]
    /// The upload taken for writing (one writer at a time, across replicas), nil when there is none;
    /// `upload_locked` while another request writes to it.
    func open(_ id: String) async throws -> UploadWriter?
    /// Removes the uploads without activity for `expiry` that no request writes to, and crash leftovers;
    /// returns the ids removed.
    func sweep(expiry: TimeInterval) async throws -> [String]
}

/// The records in the data directory, `resumable/<id>/upload.json`, locked by `flock(2)` (`JobStore`).
struct FileUploadRecords: UploadRecords {
    let store: JobStore
    let threadPool: NIOThreadPool

    func create(_ upload: ResumableUpload) async throws {
        try await threadPool.runIfActive { [store] in try store.createResumable(upload) }
    }

    func state(_ id: String) async throws -> ResumableUploadState? {
        try await threadPool.runIfActive { [store] in store.resumableState(id: id) }
    }

    func states() async throws -> [ResumableUploadState] {
        try await threadPool.runIfActive { [store] in try store.resumableStates() }
    }

    func open(_ id: String) async throws -> UploadWriter? {
        let file = try await threadPool.runIfActive { [store] in try store.openResumable(id: id) }
        return file.map { UploadWriter(file: $0, store: store, threadPool: threadPool) }
    }

    func sweep(expiry: TimeInterval) async throws -> [String] {
        try await threadPool.runIfActive { [store] in try store.sweepResumable(expiry: expiry, now: Date()) }
    }
}
