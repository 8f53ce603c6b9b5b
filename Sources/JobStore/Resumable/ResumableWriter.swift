import Digests
import Foundation

/// One request's hold on a tus upload: the upload's directory locked (`flock(2)`, exclusive, so that two
/// `PATCH`es — on one server or on two replicas — never append at once), its record, and its data file
/// open for appending.
///
/// Bytes are appended with `append` (on a thread pool, one call at a time, in order), checked against the
/// store's disk watermark, and given to `digest` (the chunk's `Upload-Checksum` algorithm, when there is one).
/// `commit()` makes them durable (the new offset is then what the next `HEAD` reports, after any restart);
/// `rollback()` cuts the file back to where the chunk started (a checksum that does not match, or a chunk
/// cut off that cannot be verified). `close()` releases the lock; a writer released without it closes too.
public final class ResumableWriter: @unchecked Sendable {
    // Sendable because its mutable state is only touched under a lock (descriptors and offsets under
    // `lock`, the chunk's digest under `digestLock`), so it may be handed from one thread to the next, as
    // `UploadFile` is.
    private let lock = NSLock()
    private let digestLock = NSLock()
    private let store: JobStore
    private var directory: Int32
    private var data: Int32
    private let dataPath: String
    /// The record as of opening (or the last `save`).
    public private(set) var upload: ResumableUpload
    /// Bytes in the data file: the offset the next chunk starts at.
    public private(set) var offset: Int64
    /// Where the chunk under way started.
    private var chunkStart: Int64
    private var chunkDigest: MessageDigest?

    /// Whether `save` writes the record to `upload.json` (false: the record is kept elsewhere, in a
    /// database, and `save` only keeps it here).
    private let recordOnDisk: Bool
    /// Set once the writer may no longer append (`revoke`).
    private var revoked = false

    /// Nil when there is no upload `id`. With `record` (kept elsewhere), the data file is cut back to
    /// `committed` bytes: what is past it was never acknowledged.
    init?(store: JobStore, id: String, record: (upload: ResumableUpload, committed: Int64)? = nil) throws {
        let directory = try Self.lock(store.resumableUploadDirectory(id: id))
        guard let directory else { return nil }
        guard let upload = record?.upload ?? store.readResumable(store.resumableRecordPath(id: id)) else {
            Foundation.close(directory)
            return nil
        }
        dataPath = store.resumableDataPath(id: id)
        let data = open(dataPath, O_WRONLY | O_APPEND | O_CLOEXEC)
        var info = stat()
        if data >= 0 && fstat(data, &info) == 0 {
            offset = Int64(info.st_size)
            self.data = data
            if let committed = record?.committed, committed != offset {
                guard committed < offset, ftruncate(data, off_t(committed)) == 0 else {
                    Foundation.close(data)
                    Foundation.close(directory)
                    throw StoreError(
                        code: .ioError,
                        message:
                            "\(dataPath) holds \(offset) bytes, not the \(committed) committed, and cannot be cut back")
                }
                offset = committed
            }
        } else {
            if data >= 0 { Foundation.close(data) }
            // The bytes went into the job the upload names (or are gone: then there is no upload).
            guard upload.jobID != nil else {
                Foundation.close(directory)
                return nil
            }
            offset = upload.length
            self.data = -1
        }
        self.store = store
        self.directory = directory
        self.upload = upload
        recordOnDisk = record == nil
        chunkStart = offset
    }

    deinit { close() }

    /// The locked descriptor of an upload's directory; nil when it does not exist. Throws `upload_locked`
    /// when another writer holds it.
    static func lock(_ path: String) throws -> Int32? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StoreError.io("cannot open", path)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Foundation.close(fd)
            guard code == EWOULDBLOCK else { throw StoreError.io("cannot lock", path, errno: code) }
            throw StoreError(
                code: .uploadLocked, message: "another request is writing to this upload; retry when it has ended")
        }
        return fd
    }

    /// Whether the bytes are still here (not yet moved into a job).
    public var hasData: Bool { lock.withLock { data >= 0 } }

    /// Starts a chunk at the current offset, digested with `algorithm` when the client sent a checksum.
    public func beginChunk(verifying algorithm: MessageDigest.Algorithm?) {
        lock.withLock { chunkStart = offset }
        digestLock.withLock { chunkDigest = algorithm.map(MessageDigest.init) }
    }

    /// Appends the pieces in order, with one `writev` where the kernel takes them all, without digesting
    /// them: a caller must `digest` what it appends, in the same order. `insufficient_storage` when they
    /// would take the disk below the watermark.
    public func append(_ pieces: [UnsafeRawBufferPointer]) throws {
        try lock.withLock {
            guard data >= 0 else { throw StoreError(code: .ioError, message: "\(dataPath) is not open") }
            guard !revoked else {
                throw StoreError(
                    code: .uploadLocked, message: "this request lost the upload to another writer; retry from HEAD")
            }
            let count = pieces.reduce(0) { $0 + $1.count }
            try store.watermark.check(adding: Int64(count))
            try FileIO.writeAll(data, pieces, path: dataPath)
            offset += Int64(count)
        }
    }

    /// Adds appended pieces to the chunk's digest, when it is being verified.
    public func digest(_ pieces: [UnsafeRawBufferPointer]) {
        digestLock.withLock {
            for piece in pieces { chunkDigest?.update(piece) }
        }
    }

    /// The digest of the chunk's bytes, when it is being verified.
    public func chunkChecksum() -> [UInt8]? { digestLock.withLock { chunkDigest?.finalize() } }

    /// Makes the bytes written so far durable: after this the offset survives a crash.
    public func commit() throws {
        try lock.withLock {
            guard data >= 0 else { return }
            try FileIO.sync(data, path: dataPath)
        }
    }

    /// Drops the chunk under way: the file is cut back to where it started.
    public func rollback() throws {
        try lock.withLock {
            guard data >= 0 else { return }
            guard ftruncate(data, off_t(chunkStart)) == 0 else { throw StoreError.io("cannot truncate", dataPath) }
            offset = chunkStart
            try FileIO.sync(data, path: dataPath)
        }
    }

    /// Cuts the file back to `offset` bytes (never below where the chunk under way started): the bytes past
    /// it could not be kept.
    public func cut(to offset: Int64) throws {
        try lock.withLock {
            guard data >= 0, offset < self.offset else { return }
            let target = max(offset, chunkStart)
            guard ftruncate(data, off_t(target)) == 0 else { throw StoreError.io("cannot truncate", dataPath) }
            self.offset = target
        }
    }

    /// The complete upload as a file a job can take: its path, size and SHA-256, read back from the disk
    /// (the SHA-256 is recorded, so later calls do not read it again).
    public func completedFile() throws -> UploadedFile {
        if let sha256 = lock.withLock({ upload.sha256 }) {
            return UploadedFile(path: dataPath, size: offset, sha256: sha256)
        }
        let (size, sha256) = try SHA256Hasher.hexDigest(ofFileAt: dataPath)
        var hashed = lock.withLock { upload }
        hashed.sha256 = sha256
        try save(hashed)
        return UploadedFile(path: dataPath, size: size, sha256: sha256)
    }

    /// Replaces the record (only here, when it is kept elsewhere: its keeper stores it).
    public func save(_ upload: ResumableUpload) throws {
        if recordOnDisk { try store.saveResumable(upload) }
        lock.withLock { self.upload = upload }
    }

    /// Makes every later `append` fail with `upload_locked`: the lease that let this writer write is lost.
    public func revoke() {
        lock.withLock { revoked = true }
    }

    /// Closes the data file and releases the lock. Does nothing the second time.
    public func close() {
        lock.withLock {
            if data >= 0 { Foundation.close(data) }
            if directory >= 0 { Foundation.close(directory) }
            data = -1
            directory = -1
        }
    }
}
