import JobStore
import MediaJobs
import Synchronization

/// What each owner (an API token's name; nil for use without tokens) stores on the server's disk, and the
/// room unfinished tus uploads have been promised, kept in memory so that a check costs a lock and never a
/// walk of the store.
///
/// An owner stores the inputs and outputs of its jobs (`JobIndex.storedBytes`, kept with every record),
/// the declared length of each of its uploads held (unfinished, or complete and not yet taken by a job),
/// and what its requests are receiving now (`StorageHold`); `--quota` bounds the sum. The declared rest of
/// each unfinished upload (length − offset) is disk promised to it: new uploads, request bodies and job
/// starts count it against the free space above `--min-free-disk`.
///
/// Uploads are read from the store at start (`replaceUploads`), followed through the requests that create,
/// extend, complete and delete them, and checked against the store at each expiry sweep (`refreshUploads`),
/// which also catches what another replica of a shared store did to them.
package final class StorageLedger: Sendable {
    /// `--quota` and `--max-pending-uploads`.
    package struct Limits: Sendable, Equatable {
        /// Bytes an owner may store; 0: no quota.
        package var quota: Int64
        /// Unfinished uploads an owner may hold at once.
        package var maxPendingUploads: Int

        package init(quota: Int64 = 0, maxPendingUploads: Int = 20) {
            self.quota = quota
            self.maxPendingUploads = maxPendingUploads
        }
    }

    private struct Upload {
        var owner: String?
        var length: Int64
        var offset: Int64
    }

    private struct Contents {
        var uploads: [String: Upload] = [:]
        /// Bytes each owner's requests under way are receiving.
        var receiving: [String?: Int64] = [:]
    }

    package let limits: Limits
    private let jobs: JobIndex
    private let watermark: DiskWatermark
    private let contents = Mutex(Contents())

    package init(limits: Limits, jobs: JobIndex, watermark: DiskWatermark) {
        self.limits = limits
        self.jobs = jobs
        self.watermark = watermark
    }

    // MARK: Quota

    /// The bytes `owner` stores now.
    package func stored(by owner: String?) -> Int64 {
        contents.withLock { stored(by: owner, $0) }
    }

    private func stored(by owner: String?, _ contents: Contents) -> Int64 {
        let uploads = contents.uploads.values.reduce(Int64(0)) { $0 + ($1.owner == owner ? $1.length : 0) }
        return jobs.storedBytes(of: owner) + uploads + contents.receiving[owner, default: 0]
    }

    /// What `owner` may still store (negative when over); nil without a quota.
    package func remaining(for owner: String?) -> Int64? {
        limits.quota > 0 ? limits.quota - stored(by: owner) : nil
    }

    /// Counts `bytes` a request is about to receive against `owner`'s quota until the hold is released;
    /// nil without a quota. Throws `quota_exceeded` when they would take the owner past it.
    package func hold(_ bytes: Int64, for owner: String?) throws -> StorageHold? {
        guard limits.quota > 0 else { return nil }
        let hold = StorageHold(ledger: self, owner: owner)
        try hold.cover(bytes)
        return hold
    }

    /// Adds `bytes` to what `owner`'s requests are receiving, unless that passes the quota.
    func receive(_ bytes: Int64, for owner: String?) throws {
        try contents.withLock { contents in
            let stored = stored(by: owner, contents)
            guard stored + bytes <= limits.quota else { throw quotaExceeded(owner, stored: stored, adding: bytes) }
            contents.receiving[owner, default: 0] += bytes
        }
    }

    /// Takes back bytes `receive` added.
    func release(_ bytes: Int64, for owner: String?) {
        guard bytes > 0 else { return }
        contents.withLock { contents in
            contents.receiving[owner, default: 0] -= bytes
            if contents.receiving[owner] ?? 0 <= 0 { contents.receiving[owner] = nil }
        }
    }

    /// `quota_exceeded` when outputs of `bytes` would take `record`'s owner past the quota (its inputs
    /// already count), else nil: the check of a run's outputs before they are listed.
    package func refusal(ofOutputs bytes: Int64, of record: JobRecord) -> JobError? {
        guard limits.quota > 0 else { return nil }
        let stored = stored(by: record.owner)
        guard stored + bytes > limits.quota else { return nil }
        let error = quotaExceeded(record.owner, stored: stored, adding: bytes, what: "the job's outputs")
        return JobError(code: error.code.rawValue, message: error.message + "; the outputs were removed")
    }

    private func quotaExceeded(_ owner: String?, stored: Int64, adding bytes: Int64, what: String = "this upload")
        -> StoreError
    {
        let who = owner.map { "the API token '\($0)'" } ?? "use without a token"
        return StoreError(
            code: .quotaExceeded,
            message: "\(who) stores \(stored) bytes of its \(limits.quota)-byte quota (--quota) and \(what) "
                + "(\(bytes) bytes) would pass it: delete finished jobs or uploads first")
    }

    // MARK: Uploads

    /// Registers `upload`, a new tus upload with nothing received yet, unless its owner holds
    /// `maxPendingUploads` unfinished ones already (`too_many_uploads`), its length would take the owner
    /// past the quota (`quota_exceeded`), or the disk, `freeBytes` free now, cannot take it above its
    /// reserve beside the room promised to the unfinished uploads (`insufficient_storage`).
    package func admitUpload(_ upload: ResumableUpload, freeBytes: Int64) throws {
        try contents.withLock { contents in
            let owner = upload.owner
            let pending = contents.uploads.values.count { $0.owner == owner && $0.offset < $0.length }
            guard pending < limits.maxPendingUploads else {
                let who = owner.map { "the API token '\($0)'" } ?? "use without a token"
                throw StoreError(
                    code: .tooManyUploads,
                    message: "\(who) has \(pending) unfinished uploads, as many as it may (--max-pending-uploads): "
                        + "finish or delete one first")
            }
            if limits.quota > 0 {
                let stored = stored(by: owner, contents)
                guard stored + upload.length <= limits.quota else {
                    throw quotaExceeded(owner, stored: stored, adding: upload.length)
                }
            }
            let reserved = Self.reserved(contents)
            guard freeBytes - reserved - upload.length >= watermark.minimumFreeBytes else {
                throw StoreError.insufficientStorage(
                    free: freeBytes, minimum: watermark.minimumFreeBytes, reserved: reserved)
            }
            contents.uploads[upload.id] = Upload(owner: owner, length: upload.length, offset: 0)
        }
    }

    /// Notes that `upload`, whose bytes it still holds, has `offset` of them: after each chunk, here or (an
    /// upload this replica had not seen) on another replica.
    package func uploadProgressed(_ upload: ResumableUpload, offset: Int64) {
        contents.withLock {
            $0.uploads[upload.id] = Upload(owner: upload.owner, length: upload.length, offset: offset)
        }
    }

    /// Forgets an upload: deleted, expired, or its bytes taken by a job.
    package func forgetUpload(_ id: String) {
        _ = contents.withLock { $0.uploads.removeValue(forKey: id) }
    }

    /// Replaces what is known of uploads with `states`, those on disk (at start).
    package func replaceUploads(_ states: [ResumableUploadState]) {
        contents.withLock { contents in
            contents.uploads = [:]
            for state in states where state.holdsData {
                contents.uploads[state.upload.id] = Upload(
                    owner: state.upload.owner, length: state.upload.length, offset: state.offset)
            }
        }
    }

    /// Checks every upload known against `state` (its state on disk now, nil when gone) and forgets those
    /// gone or taken by a job: at each expiry sweep. Blocking I/O in `state`: call on a thread pool.
    package func refreshUploads(_ state: (String) -> ResumableUploadState?) {
        for id in contents.withLock({ Array($0.uploads.keys) }) {
            let found = state(id)
            contents.withLock { contents in
                guard contents.uploads[id] != nil else { return }
                if let found, found.holdsData {
                    contents.uploads[id]?.offset = found.offset
                } else {
                    contents.uploads[id] = nil
                }
            }
        }
    }

    /// The bytes unfinished uploads (but the one `besides` names) have declared and not yet received:
    /// disk promised to them.
    package func reservedUploadBytes(besides id: String? = nil) -> Int64 {
        contents.withLock { Self.reserved($0, besides: id) }
    }

    private static func reserved(_ contents: Contents, besides id: String? = nil) -> Int64 {
        contents.uploads.reduce(0) { $0 + ($1.key == id ? 0 : max(0, $1.value.length - $1.value.offset)) }
    }

    // MARK: Jobs

    /// What a run of `record` may write now: `maxOutput`, the disk's free space above its reserve less the
    /// room promised to unfinished uploads, and what its owner has left of the quota. Asks the disk
    /// (`statvfs`): call off the event loops.
    package func allowance(for record: JobRecord, maxOutput: Int64) -> OutputAllowance {
        let headroom = watermark.freeBytes() - watermark.minimumFreeBytes - reservedUploadBytes()
        return OutputAllowance(
            maxOutput: maxOutput, diskHeadroom: max(0, headroom),
            quotaRemaining: remaining(for: record.owner).map { max(0, $0) })
    }
}
