import DurableIO
import Foundation

/// tus uploads, kept beside the jobs so that they survive restarts and every replica of a shared store
/// can take them up where another left off:
///
/// ```
/// <root>/resumable/<id>/upload.json   the ResumableUpload, replaced atomically
/// <root>/resumable/<id>/data          the bytes received so far; its size is the upload's offset
/// ```
///
/// An upload is created as `resumable/.new-<id>` and renamed into place complete, and deleted by renaming
/// it to `resumable/.deleted-<id>` first, like a job. Whoever writes to an upload holds an exclusive
/// `flock(2)` on its directory (`ResumableWriter`), on one server or across replicas. Blocking I/O: call on a
/// thread pool.
extension JobStore {
    /// `<root>/resumable`.
    public var resumableDirectory: String { root + "/resumable" }

    func resumableUploadDirectory(id: String) -> String { resumableDirectory + "/" + id }

    /// Where an upload's bytes are.
    public func resumableDataPath(id: String) -> String { resumableUploadDirectory(id: id) + "/data" }

    func resumableRecordPath(id: String) -> String { resumableUploadDirectory(id: id) + "/upload.json" }

    /// Stores a new, empty upload; without `keepingRecord` only its (empty) bytes, its record being kept
    /// elsewhere.
    public func createResumable(_ upload: ResumableUpload, keepingRecord: Bool = true) throws {
        try Self.requireValidID(upload.id)
        try FileIO.makeDirectory(resumableDirectory, mayExist: true)
        let staging = resumableDirectory + "/" + Self.stagingPrefix + upload.id
        try FileIO.makeDirectory(staging)
        do {
            if keepingRecord {
                try FileIO.createSynced(try Self.encodeResumable(upload), at: staging + "/upload.json")
            }
            try FileIO.createSynced(Data(), at: staging + "/data")
            try FileIO.syncDirectory(staging)
            try FileIO.rename(staging, to: resumableUploadDirectory(id: upload.id))
        } catch {
            try? FileIO.remove(staging)
            throw error
        }
        try FileIO.syncDirectory(resumableDirectory)
    }

    /// The upload as it is on disk now, without taking its lock; nil when there is none (or `id` is not an
    /// id, or its bytes went into a job it does not name).
    public func resumableState(id: String) -> ResumableUploadState? {
        guard Self.isValidID(id), let upload = readResumable(resumableRecordPath(id: id)) else { return nil }
        let record = Self.status(resumableRecordPath(id: id))
        if let data = Self.status(resumableDataPath(id: id)) {
            return ResumableUploadState(
                upload: upload, offset: data.size, lastActivity: max(data.modified, record?.modified ?? .distantPast))
        }
        guard upload.jobID != nil else { return nil }
        return ResumableUploadState(
            upload: upload, offset: upload.length, lastActivity: record?.modified ?? upload.createdAt, holdsData: false)
    }

    /// Every upload on disk now, for the accounting of what uploads hold and have reserved, rebuilt at
    /// start; what crashed creations and deletions left is not an upload.
    public func resumableStates() throws -> [ResumableUploadState] {
        guard FileIO.isDirectory(resumableDirectory) else { return [] }
        return try FileIO.entries(resumableDirectory).filter(Self.isValidID).compactMap(resumableState(id:))
    }

    /// The upload opened for writing, its lock held until the writer is closed; nil when there is none.
    /// Throws `upload_locked` while another request (here or on another replica) holds it.
    public func openResumable(id: String) throws -> ResumableWriter? {
        guard Self.isValidID(id) else { return nil }
        return try ResumableWriter(store: self, id: id)
    }

    /// Upload `id` whose record is kept elsewhere (`record`, with `committed` bytes acknowledged), opened
    /// for writing as `openResumable` opens one; bytes past `committed` are cut off.
    public func openResumable(id: String, record: ResumableUpload, committed: Int64) throws -> ResumableWriter? {
        guard Self.isValidID(id) else { return nil }
        return try ResumableWriter(store: self, id: id, record: (record, committed))
    }

    /// For an upload whose bytes became its job's input in the bucket (`--objects`): its directory made
    /// here when missing, without a data file, so that it opens as an upload whose bytes moved into its job.
    public func createResumableDirectory(_ upload: ResumableUpload) throws {
        guard !FileIO.isDirectory(resumableUploadDirectory(id: upload.id)) else { return }
        try createResumable(upload, keepingRecord: false)
        guard unlink(resumableDataPath(id: upload.id)) == 0 else {
            throw StoreError.io("cannot remove", resumableDataPath(id: upload.id))
        }
    }

    /// For an upload whose bytes are in the bucket (`--objects`): its directory here made (when missing)
    /// with a data file of `committed` bytes, sparse but for `tail`, the bytes past the last stored part,
    /// at its end. A request appends there and sends the parts it fills from there, as if every byte were
    /// here; the holes take no room.
    public func prepareResumableScratch(_ upload: ResumableUpload, committed: Int64, tail: [UInt8]) throws {
        if !FileIO.isDirectory(resumableUploadDirectory(id: upload.id)) {
            try createResumable(upload, keepingRecord: false)
        }
        let path = resumableDataPath(id: upload.id)
        let data = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard data >= 0 else { throw StoreError.io("cannot open", path) }
        defer { Foundation.close(data) }
        let start = committed - Int64(tail.count)
        guard ftruncate(data, 0) == 0, ftruncate(data, off_t(start)) == 0 else {
            throw StoreError.io("cannot truncate", path)
        }
        let written = tail.withUnsafeBytes { pwrite(data, $0.baseAddress, $0.count, off_t(start)) }
        guard written == tail.count else { throw StoreError.io("cannot write", path) }
    }

    /// Whether upload `id`'s bytes are still in its directory (not moved into a job, nor removed).
    public func resumableHoldsData(id: String) -> Bool {
        Self.isValidID(id) && Self.status(resumableDataPath(id: id)) != nil
    }

    /// For uploads whose records are kept elsewhere: removes what crashed creations and deletions left
    /// (an hour old), and returns the upload directories untouched for `age`, for the caller to remove
    /// those that have no record.
    public func staleResumableDirectories(age: TimeInterval, now: Date) throws -> [String] {
        guard FileIO.isDirectory(resumableDirectory) else { return [] }
        var stale: [String] = []
        for name in try FileIO.entries(resumableDirectory) {
            let modified = Self.status(resumableDirectory + "/" + name)?.modified ?? .distantPast
            if name.hasPrefix(".") {
                if modified < now.addingTimeInterval(-3600) { try? FileIO.remove(resumableDirectory + "/" + name) }
            } else if Self.isValidID(name), modified < now.addingTimeInterval(-age) {
                stale.append(name)
            }
        }
        return stale
    }

    /// Removes an upload and its bytes; nothing happens when it is gone already.
    public func deleteResumable(id: String) throws {
        try Self.requireValidID(id)
        let doomed = resumableDirectory + "/" + Self.deletedPrefix + id
        guard Foundation.rename(resumableUploadDirectory(id: id), doomed) == 0 else {
            if errno == ENOENT { return }
            throw StoreError.io("cannot rename away", resumableUploadDirectory(id: id))
        }
        try FileIO.syncDirectory(resumableDirectory)
        try FileIO.remove(doomed)
    }

    /// Removes the uploads that have seen no activity for `expiry` (complete or not: a complete one not
    /// used by then is abandoned too), and what crashed creations and deletions left; returns the ids of
    /// the uploads removed. An upload being written to is left for the next sweep.
    @discardableResult
    public func sweepResumable(expiry: TimeInterval, now: Date) throws -> [String] {
        guard FileIO.isDirectory(resumableDirectory) else { return [] }
        let cutoff = now.addingTimeInterval(-expiry)
        var removed: [String] = []
        for name in try FileIO.entries(resumableDirectory) {
            let path = resumableDirectory + "/" + name
            if name.hasPrefix(".") {
                if (Self.status(path)?.modified ?? .distantPast) < now.addingTimeInterval(-3600) {
                    try? FileIO.remove(path)
                }
                continue
            }
            let lastActivity =
                resumableState(id: name)?.lastActivity ?? Self.status(path)?.modified ?? .distantPast
            guard lastActivity < cutoff else { continue }
            guard Self.isValidID(name) else {
                try? FileIO.remove(path)
                continue
            }
            // Taking the lock tells an upload a request is writing to (left for later) from an abandoned one.
            guard let writer = try? ResumableWriter.lock(resumableUploadDirectory(id: name)) else { continue }
            defer { close(writer) }
            try deleteResumable(id: name)
            removed.append(name)
        }
        return removed
    }

    /// Replaces an upload's record atomically.
    func saveResumable(_ upload: ResumableUpload) throws {
        try FileIO.writeAtomically(try Self.encodeResumable(upload), to: resumableRecordPath(id: upload.id))
    }

    func readResumable(_ path: String) -> ResumableUpload? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JobJSON.decoder().decode(ResumableUpload.self, from: data)
    }

    private static func encodeResumable(_ upload: ResumableUpload) throws -> Data {
        do {
            return try JobJSON.encoder().encode(upload)
        } catch {
            throw StoreError(code: .ioError, message: "cannot encode upload \(upload.id): \(error)")
        }
    }

    /// Size and modification time of a file, nil when it is not there.
    static func status(_ path: String) -> (size: Int64, modified: Date)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return (Int64(info.st_size), Date(timeIntervalSince1970: modified))
    }
}
