import Foundation
import JobDatabase
import JobStore
import Logging
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOPosix

/// The records in the replicas' database (`--database`, table `uploads`), the bytes in the shared data
/// directory (`resumable/<id>/data`, no `upload.json`): an upload made on one replica is read, resumed
/// and completed on any other. With `--objects` the bytes go into the bucket instead, as one multipart
/// upload made with the upload, the parts and the tail recorded in the database (`UploadObjectWriter`):
/// the replicas then share no directory, and a request's data file is its own scratch.
///
/// `HEAD` reports the committed offset, which a `PATCH` moves once its bytes are synced. A `PATCH` takes
/// the upload's writer lease (one writer across replicas; `upload_locked` for the next) for the replicas'
/// lease TTL, renewed while it lasts; the lease of a writer that died expires by the database's clock, and
/// the next writer cuts the data file back to the committed offset. Every statement answers within
/// `JobDatabase.statementDeadline` or the request gets 503 `store_unavailable`.
struct DatabaseUploadRecords: UploadRecords {
    let database: JobDatabase
    let store: JobStore
    let threadPool: NIOThreadPool
    let replicas: ReplicaSettings
    /// The bucket of `--objects`, where the bytes go when it is set.
    let objects: JobObjects?
    private let logger = Logger(label: "mediad.uploads")

    init(
        database: JobDatabase, store: JobStore, threadPool: NIOThreadPool, replicas: ReplicaSettings,
        objects: JobObjects?
    ) {
        self.database = database
        self.store = store
        self.threadPool = threadPool
        self.replicas = replicas
        self.objects = objects
    }

    func create(_ upload: ResumableUpload) async throws {
        if let objects { return try await create(upload, in: objects) }
        try await threadPool.runIfActive { [store] in try store.createResumable(upload, keepingRecord: false) }
        do {
            _ = try await Self.call { [database] in try await database.insertUpload(upload) }
        } catch {
            try? await threadPool.runIfActive { [store] in try store.deleteResumable(id: upload.id) }
            throw error
        }
    }

    /// Makes the upload's multipart upload, then its row; an upload whose metadata names a kind goes to the
    /// input of the job it will be, whose id is chosen now. 503 `storage_unavailable` when the store fails.
    private func create(_ upload: ResumableUpload, in objects: JobObjects) async throws {
        let input = upload.metadata["kind"].flatMap(JobKind.init(rawValue:))?.loneInput?.storedName
        let job = input.map { _ in JobStore.newID() }
        let key = JobObjects.uploadKey(upload.id, job: job, input: input)
        let uploadID: String
        do {
            uploadID = try await objects.startUpload(key)
        } catch let error as MediaError {
            throw ServiceError(error)
        }
        do {
            _ = try await Self.call { [database] in
                try await database.insertUpload(upload, object: UploadObject(key: key, uploadID: uploadID, job: job))
            }
        } catch {
            try? await objects.removeUpload(key, uploadID: uploadID)
            throw error
        }
    }

    func state(_ id: String) async throws -> ResumableUploadState? {
        guard let stored = try await Self.call({ [database] in try await database.loadUpload(id) }) else { return nil }
        return try await threadPool.runIfActive { [store, objects] in Self.state(stored, store, objects: objects != nil)
        }
    }

    func states() async throws -> [ResumableUploadState] {
        let stored = try await Self.call { [database] in try await database.uploads() }
        return try await threadPool.runIfActive { [store, objects] in
            stored.compactMap { Self.state($0, store, objects: objects != nil) }
        }
    }

    func open(_ id: String) async throws -> UploadWriter? {
        let writer = "\(replicas.replicaID)/\(JobStore.newID().prefix(8))"
        let claim = try await Self.call { [database, replicas] in
            try await database.claimUploadWriter(id, writer: writer, ttl: replicas.leaseTTL)
        }
        switch claim {
        case .notFound: return nil
        case .held: throw Self.locked
        case .taken(let stored, _, let previous):
            let lease = UploadWriterLease(id: id, writer: writer, database: database, ttl: replicas.leaseTTL)
            if let previous {
                logger.notice(
                    "taking over an upload whose writer's lease expired",
                    metadata: ["upload_id": .string(id), "writer": .string(previous)])
            }
            let file: ResumableWriter?
            var object: UploadObjectWriter?
            do {
                object = try await objectWriter(stored)
                file = try await threadPool.runIfActive { [store] in
                    try store.openResumable(id: id, record: stored.upload, committed: stored.committedOffset)
                }
            } catch {
                await lease.release()
                throw error
            }
            guard let file else {
                await lease.release()
                return nil
            }
            lease.keep(file, logger: logger)
            return UploadWriter(file: file, lease: lease, object: object, store: store, threadPool: threadPool)
        }
    }

    /// With `--objects`, the upload's object as the database records it, with its data file made here
    /// (sparse but for the tail); nil without `--objects`, or once the object is its job's input (the
    /// upload then has no data file, as one whose bytes moved into its job).
    private func objectWriter(_ stored: StoredUpload) async throws -> UploadObjectWriter? {
        guard let objects else { return nil }
        let id = stored.upload.id
        guard let object = stored.object else {
            try await threadPool.runIfActive { [store] in
                try store.createResumableDirectory(stored.upload)
            }
            return nil
        }
        guard let progress = try await Self.call({ [database] in try await database.uploadProgress(id) }) else {
            throw StoreError(code: .notFound, message: "upload \(id) is gone")
        }
        try await threadPool.runIfActive { [store] in
            try store.prepareResumableScratch(stored.upload, committed: stored.committedOffset, tail: progress.tail)
        }
        return UploadObjectWriter(
            objects: objects, object: object, progress: progress, path: store.resumableDataPath(id: id))
    }

    /// Deletes the expired rows (one statement: replicas sweeping at once get different ids), then their
    /// bytes; then the directories an hour old that have no row (a creation or deletion cut short).
    func sweep(expiry: TimeInterval) async throws -> [String] {
        let swept = try await Self.call { [database] in try await database.sweepUploads(expiry: expiry) }
        let removed = swept.map(\.id)
        try await threadPool.runIfActive { [store] in
            for id in removed { try store.deleteResumable(id: id) }
        }
        for case let object? in swept.map(\.object) {
            do {
                try await objects?.removeUpload(object.key, uploadID: object.uploadID)
            } catch {
                logger.warning(
                    "an expired upload's object could not be removed",
                    metadata: ["key": .string(object.key), "error": .string("\(error)")])
            }
        }
        let stale = try await threadPool.runIfActive { [store] in
            try store.staleResumableDirectories(age: ReplicaSettings.leftoverAge, now: Date())
        }
        guard !stale.isEmpty else { return removed }
        let kept = try await Self.call { [database] in try await database.existingUploads(stale) }
        let orphans = stale.filter { !kept.contains($0) }
        try await threadPool.runIfActive { [store] in
            for id in orphans { try store.deleteResumable(id: id) }
        }
        return removed
    }

    /// A statement within `JobDatabase.statementDeadline`; a database that fails or does not answer is 503
    /// `store_unavailable`.
    static func call<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await JobDatabase.within(JobDatabase.statementDeadline, body)
        } catch let error as DatabaseError {
            throw StoreError(code: .storeUnavailable, message: "the upload database cannot be used now: \(error)")
        }
    }

    private static let locked = StoreError(
        code: .uploadLocked, message: "another request is writing to this upload; retry when it has ended")

    /// The state of a stored upload, its bytes looked for in the data directory (blocking I/O), or, with
    /// `--objects`, in the bucket: until its object is its job's input.
    private static func state(_ stored: StoredUpload, _ store: JobStore, objects: Bool) -> ResumableUploadState? {
        let holdsData = objects ? stored.object != nil : store.resumableHoldsData(id: stored.upload.id)
        guard holdsData || stored.upload.jobID != nil else { return nil }
        return ResumableUploadState(
            upload: stored.upload, offset: holdsData ? stored.committedOffset : stored.upload.length,
            lastActivity: stored.updatedAt, holdsData: holdsData)
    }
}
