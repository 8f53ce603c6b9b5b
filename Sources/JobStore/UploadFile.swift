import Digests
import DurableIO
import Foundation

/// A request body that has been written to disk completely and synced: where it is, how big, its SHA-256.
public struct UploadedFile: Sendable, Equatable {
    public var path: String
    public var size: Int64
    /// Lowercase hex.
    public var sha256: String

    /// A file received elsewhere: a tus upload in the bucket has no `path` here (an empty one).
    public init(path: String, size: Int64, sha256: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
    }
}

/// A request body on its way to disk, in `<root>/uploads/<random>.part`, hashed as it is written so the
/// SHA-256 is known the moment the last byte lands, without reading the file again.
///
/// Made by `JobStore.makeUpload()`. Either `finish()` it (the file stays, and `JobStore.create` moves it
/// into a job) or `discard()` it; an upload released without either is discarded, so an aborted request
/// leaves nothing behind. Writes are blocking I/O: call them on a thread pool, one at a time, in order.
public final class UploadFile: @unchecked Sendable {
    // Sendable because every access to the mutable state happens under a lock: the descriptor and sizes
    // under `lock`, the hasher under `digestLock` (two locks, so that a block is digested while the next
    // is appended). The upload may be handed from one thread to the next. (A `Mutex` cannot hold the
    // hasher here: the compiler cannot tell that `update` keeps no reference to the caller's buffer.)
    private let lock = NSLock()
    private let digestLock = NSLock()
    private var fd: Int32
    private var written: Int64 = 0
    /// Starts the disk's writeback as the file grows (see `append`). The pages stay cached: the job that
    /// reads the upload usually runs next.
    private var writeBehind: WriteBehind
    private let hasher = SHA256Hasher()

    /// Where the bytes are being written.
    public let path: String
    private let watermark: DiskWatermark

    init(directory: String, watermark: DiskWatermark) throws {
        let path = directory + "/" + JobStore.newID() + ".part"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io("cannot create", path) }
        self.path = path
        self.fd = fd
        self.watermark = watermark
        writeBehind = WriteBehind(fd: fd, dropBehind: false)
    }

    deinit { discard() }

    /// Bytes written so far.
    public var size: Int64 { lock.withLock { written } }

    /// Appends bytes (all of them: short writes and `EINTR` are retried) and adds them to the digest.
    /// Throws `insufficient_storage` instead when they would take the disk below the store's watermark.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try write([bytes])
    }

    /// Appends the chunks and adds them to the digest, the digest computed on a second thread while this
    /// one writes: SHA-256 and the kernel's copy into the page cache take about as long as each other, so
    /// the chunks are hashed in the time they are written rather than after. Throws `insufficient_storage`
    /// instead when the chunks would take the disk below the store's watermark.
    public func write(_ chunks: [UnsafeRawBufferPointer]) throws {
        try lock.withLock { try requireOpen() }
        let hashing = HashingHalf(chunks: chunks, upload: self)
        let hashed = DispatchGroup()
        DispatchQueue.global().async(group: hashed) { hashing.run() }
        let outcome = Result { try append(chunks) }
        hashed.wait()
        try outcome.get()
    }

    /// Appends the chunks in order, with one `writev` where the kernel takes them all, without adding
    /// them to the digest: a caller that appends a block must `digest` it too, blocks in the same order,
    /// each at most once (`BlockWriter` digests one block while it appends the next). Throws
    /// `insufficient_storage` instead when the chunks would take the disk below the store's watermark.
    ///
    /// Every few megabytes the disk is asked to start writing what has arrived, so the upload is on
    /// its way to disk while it is received: the `fsync` in `finish()` then waits for the last
    /// megabytes, not for gigabytes of dirty pages at once.
    public func append(_ chunks: [UnsafeRawBufferPointer]) throws {
        try lock.withLock {
            try requireOpen()
            let count = chunks.reduce(0) { $0 + $1.count }
            try watermark.check(adding: Int64(count))
            try FileIO.writeAll(fd, chunks, path: path)
            written += Int64(count)
            writeBehind.written(upTo: written)
        }
    }

    /// Adds appended chunks to the SHA-256, in the order they were appended.
    public func digest(_ chunks: [UnsafeRawBufferPointer]) {
        digestLock.withLock {
            for chunk in chunks { hasher.update(chunk) }
        }
    }

    /// Syncs and closes the file and returns what it holds. The file stays until the store moves it.
    /// Every appended block must have been digested by then.
    public func finish() throws -> UploadedFile {
        try lock.withLock {
            try requireOpen()
            let fd = self.fd
            self.fd = -1
            do {
                defer { close(fd) }
                try FileIO.sync(fd, path: path)
            } catch {
                unlink(path)
                throw error
            }
            return UploadedFile(path: path, size: written, sha256: digestLock.withLock { hasher.finalize() })
        }
    }

    /// Closes and removes the file. Does nothing once the upload is finished or discarded.
    public func discard() {
        lock.withLock {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
            unlink(path)
        }
    }

    private func requireOpen() throws {
        guard fd >= 0 else { throw StoreError(code: .ioError, message: "\(path) is already closed") }
    }
}

/// The digest's half of `UploadFile.write`, run on a second thread while the first writes the same chunks.
///
/// `@unchecked Sendable` because it carries pointers to that thread, which is safe here: `write` waits
/// for this half before it returns, so the chunks' memory outlives every use of it.
private struct HashingHalf: @unchecked Sendable {
    let chunks: [UnsafeRawBufferPointer]
    let upload: UploadFile

    func run() { upload.digest(chunks) }
}
