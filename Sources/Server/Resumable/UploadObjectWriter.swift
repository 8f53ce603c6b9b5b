import Digests
import Foundation
import JobDatabase
import JobStore
import MediaCore
import MediadHTTP
import MediadRuntime
import NIOPosix
import Synchronization

/// One request's hold on a tus upload whose bytes go into the bucket (`--objects` with `--database`): the
/// multipart upload made when the upload was, the parts stored so far, and the SHA-256 midstate after
/// them, as the database records them.
///
/// The bytes that do not yet fill a part (the tail, under 8 MiB) are kept in the database, in the upload's
/// row (`tail`, bytea), not in a small object of the bucket: the commit that records a chunk is then one
/// statement, guarded by the writer's lease, that writes the offset, the parts, the tail and the midstate
/// together, so no reader (on any replica) sees one without the others, and there is no tail object to
/// replace, find or remove. A chunk is streamed into a data file on this replica that is sparse up to the
/// tail (`JobStore.prepareResumableScratch`); the parts are cut from it as it grows (`UploadPartFeed`),
/// so memory stays at a part or two whatever the chunk's size.
final class UploadObjectWriter: Sendable {
    let objects: JobObjects
    let object: UploadObject
    private let path: String
    private let state: Mutex<State>

    private struct State {
        var parts: [StoredPart]
        var midstate: String?
        var feed: UploadPartFeed?
    }

    init(objects: JobObjects, object: UploadObject, progress: UploadProgress, path: String) {
        self.objects = objects
        self.object = object
        self.path = path
        state = Mutex(State(parts: progress.parts, midstate: progress.midstate))
    }

    /// Where the recorded parts end.
    var partsEnd: Int64 { state.withLock { $0.parts.reduce(0) { $0 + $1.size } } }

    /// Whether the multipart upload is completed (the object exists).
    var isCompleted: Bool { object.uploadID == nil }

    /// The feed of the chunk starting at `offset` of an upload of `length` bytes; nil once the object is
    /// completed.
    func beginChunk(at offset: Int64, length: Int64) -> UploadPartFeed? {
        guard let uploadID = object.uploadID else { return nil }
        return state.withLock {
            let feed = objects.partFeed(
                key: object.key, uploadID: uploadID, path: path, length: length,
                partsEnd: $0.parts.reduce(0) { $0 + $1.size },
                midstate: $0.midstate.flatMap(ResumableSHA256.Midstate.init), start: offset)
            $0.feed = feed
            return feed
        }
    }

    /// Commits what the chunk under way brought: its last part sent once the upload is whole, the parts
    /// stored in a row recorded with the tail past them (read from the data file) and the midstate after
    /// them, the SHA-256 recorded once the last part is in. What a failed part leaves past the first part
    /// that could not be stored is cut from `file` (never below the offset committed before the chunk), the
    /// upload's last byte included: the upload is whole only when all of its parts are. Throws
    /// `storage_unavailable` after the commit when a part failed.
    func commit(_ file: ResumableWriter, lease: UploadWriterLease, threadPool: NIOThreadPool) async throws {
        guard let feed = state.withLock({ $0.feed }) else { return }
        let length = file.upload.length
        if file.offset == length { try? await feed.finish() }
        let settled = await feed.settle()
        var kept = min(file.offset, settled.end + UploadPartFeed.partSize - 1)
        if kept == length, settled.end < length { kept -= 1 }
        if kept < file.offset {
            let offset = kept
            try await threadPool.runIfActive { try file.cut(to: offset) }
        }
        let (path, start, end) = (path, settled.end, kept)
        let tail = try await threadPool.runIfActive { try Self.read(path, from: start, upTo: end) }
        var record: ResumableUpload?
        if let sha256 = settled.sha256, kept == length {
            record = file.upload
            record?.sha256 = sha256
        }
        let parts = settled.parts.map { StoredPart(number: $0.number, etag: $0.etag, size: $0.size) }
        let midstate = settled.midstate?.description ?? state.withLock { $0.midstate }
        try await lease.commit(offset: kept, parts: parts, tail: tail, midstate: midstate, record: record)
        if let record { try await threadPool.runIfActive { try file.save(record) } }
        state.withLock {
            $0.parts.removeAll { part in parts.contains { $0.number == part.number } }
            $0.parts += parts
            $0.parts.sort { $0.number < $1.number }
            $0.midstate = midstate
            $0.feed = nil
        }
        if let failure = settled.failure { throw ServiceError(failure) }
    }

    /// Drops the chunk under way: its parts are not recorded (the next chunk sends those numbers again).
    func rollback() async {
        let feed = state.withLock { state in
            defer { state.feed = nil }
            return state.feed
        }
        _ = await feed?.settle()
    }

    /// Completes the multipart upload of the whole upload, once.
    func complete(lease: UploadWriterLease) async throws {
        guard let uploadID = object.uploadID else { return }
        let parts = state.withLock { $0.parts.map { (number: $0.number, etag: $0.etag) } }
        try await objects.completeUpload(object.key, uploadID: uploadID, parts: parts)
        try await lease.completeObject()
    }

    /// Removes the multipart upload and the object.
    func remove() async throws {
        try await objects.removeUpload(object.key, uploadID: object.uploadID)
    }

    /// The bytes of `path` from `start` to `end` (the tail: fewer than a part's size).
    private static func read(_ path: String, from start: Int64, upTo end: Int64) throws -> [UInt8] {
        guard end > start else { return [] }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(code: .ioError, message: "cannot open \(path)") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
        guard read == bytes.count else { throw StoreError(code: .ioError, message: "cannot read \(path)") }
        return bytes
    }
}
