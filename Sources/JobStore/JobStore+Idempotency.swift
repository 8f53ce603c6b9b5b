import Digests
import Foundation

/// `Idempotency-Key` mappings, kept beside the jobs so that every server on one data directory sees them:
///
/// ```
/// <root>/idempotency/<digest>.json   an IdempotencyEntry; digest = SHA-256 of owner, NUL, key
/// ```
///
/// A mapping is created with `link(2)` from a complete, synced temporary file, which fails with `EEXIST`
/// when the name is taken: of two requests with the same key (on one server or several, NFS included)
/// exactly one wins. A mapping is live for `lifetime` after it was made and only while its job exists; a
/// dead one is replaced by the next claim and removed by `sweepIdempotencyKeys`. Blocking I/O: call on a
/// thread pool.
extension JobStore {
    /// The result of `claimIdempotencyKey`.
    public enum IdempotencyClaim: Sendable, Equatable {
        /// The key now maps to the new entry's job.
        case claimed
        /// The key already maps to a live entry (returned).
        case taken(IdempotencyEntry)
    }

    /// `<root>/idempotency`.
    public var idempotencyDirectory: String { root + "/idempotency" }

    /// The file name stem of an owner's key: any key maps to a safe name, and owners never share one.
    public static func idempotencyDigest(owner: String, key: String) -> String {
        let hasher = SHA256Hasher()
        (Array(owner.utf8) + [0] + Array(key.utf8)).withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The live entry for `digest`, if any.
    public func idempotencyEntry(_ digest: String, lifetime: TimeInterval, now: Date) -> IdempotencyEntry? {
        readIdempotencyEntry(idempotencyPath(digest)).flatMap { isLive($0, lifetime: lifetime, now: now) ? $0 : nil }
    }

    /// Maps `digest` to `entry` unless a live entry holds it; a dead one (expired, or its job deleted) is
    /// replaced. The job must exist before it is claimed for, so a live entry always names a real job.
    public func claimIdempotencyKey(_ digest: String, _ entry: IdempotencyEntry, lifetime: TimeInterval, now: Date)
        throws -> IdempotencyClaim
    {
        try FileIO.makeDirectory(idempotencyDirectory, mayExist: true)
        let path = idempotencyPath(digest)
        let temporary = idempotencyDirectory + "/." + digest + "." + Self.newID() + ".tmp"
        try FileIO.createSynced(try JobJSON.fileData(entry, what: "an idempotency entry"), at: temporary)
        defer { unlink(temporary) }
        for _ in 0..<16 {
            if link(temporary, path) == 0 {
                try FileIO.syncDirectory(idempotencyDirectory)
                return .claimed
            }
            guard errno == EEXIST else { throw StoreError.io("cannot link", path) }
            let existing = readIdempotencyEntry(path)
            if let existing, isLive(existing, lifetime: lifetime, now: now) { return .taken(existing) }
            try removeDeadEntry(path, seen: existing)
        }
        throw StoreError(code: .ioError, message: "the idempotency key \(digest) is contended; retry")
    }

    /// Removes dead entries and temporary files left by crashed claims; returns how many entries went.
    @discardableResult
    public func sweepIdempotencyKeys(lifetime: TimeInterval, now: Date) throws -> Int {
        guard FileIO.isDirectory(idempotencyDirectory) else { return 0 }
        var removed = 0
        for name in try FileIO.entries(idempotencyDirectory) {
            let path = idempotencyDirectory + "/" + name
            if name.hasPrefix(".") {
                var info = stat()
                if lstat(path, &info) == 0, Double(info.st_mtim.tv_sec) < now.timeIntervalSince1970 - 3600 {
                    unlink(path)
                }
                continue
            }
            guard name.hasSuffix(".json") else { continue }
            let entry = readIdempotencyEntry(path)
            guard entry.map({ !isLive($0, lifetime: lifetime, now: now) }) ?? true else { continue }
            try removeDeadEntry(path, seen: entry)
            removed += 1
        }
        return removed
    }

    private func idempotencyPath(_ digest: String) -> String { idempotencyDirectory + "/" + digest + ".json" }

    private func isLive(_ entry: IdempotencyEntry, lifetime: TimeInterval, now: Date) -> Bool {
        now.timeIntervalSince(entry.createdAt) < lifetime && Self.isValidID(entry.jobID)
            && FileIO.isDirectory(jobDirectory(id: entry.jobID))
    }

    private func readIdempotencyEntry(_ path: String) -> IdempotencyEntry? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JobJSON.decoder().decode(IdempotencyEntry.self, from: data)
    }

    /// Removes the entry at `path` that was read as `seen` (nil: unreadable). It is renamed aside first and
    /// checked there, so a fresh entry another request linked in meanwhile is put back, not lost.
    private func removeDeadEntry(_ path: String, seen: IdempotencyEntry?) throws {
        let aside = idempotencyDirectory + "/.dead-" + Self.newID()
        guard Foundation.rename(path, aside) == 0 else {
            if errno == ENOENT { return }
            throw StoreError.io("cannot rename away", path)
        }
        defer { unlink(aside) }
        if readIdempotencyEntry(aside) != seen { _ = link(aside, path) }
    }
}
