import Digests
import MediaCore
import MediadClient
import NIOPosix
import ObjectStorage

/// The parts of a tus upload into the bucket, cut from the upload's data file on this replica while one
/// request appends to it: each whole 8 MiB of the upload (parts are aligned on the upload's offsets, so part
/// `n` is the same bytes whichever replica sends it, and sending it again replaces it) goes up as part
/// `offset / 8 MiB + 1`, at most two in flight, read from the file (the page cache, no copy in memory).
///
/// Each part is read once, on the thread pool, for both its own SHA-256 (the store checks the part
/// against it) and the upload's running digest, whose midstate after the part is kept with it: the upload's
/// SHA-256 is taken up again after the last part stored, on any replica. One owner calls it, one call at a
/// time.
package actor UploadPartFeed {
    /// A part that was stored: what the database records of it, and the digest state after it.
    package struct Fed: Sendable {
        package var number: Int
        package var etag: String
        package var size: Int64
        /// The upload's digest after this part's bytes.
        var digest: ResumableSHA256
    }

    /// What the parts sent came to, in order: those stored one after the other from the first, where
    /// they end, the upload's digest after them, and the failure that stopped the rest, if any.
    package struct Settled: Sendable {
        package var parts: [Fed]
        /// Where the parts stored end (where those recorded before ended, when none was stored).
        package var end: Int64
        /// The midstate after `parts` (nil when none was stored, or when they end the upload off a block
        /// boundary).
        package var midstate: ResumableSHA256.Midstate?
        /// The upload's SHA-256, when `parts` end it.
        package var sha256: String?
        package var failure: MediaError?
    }

    package static let partSize = InputObjectPut.partSize
    let client: S3Client
    let key: String
    let uploadID: String
    /// The data file, as long as the upload's committed offset plus what this request appended.
    let path: String
    /// The upload's declared length.
    let length: Int64
    /// Where this request's appends start in the file.
    let start: Int64
    /// Where the parts recorded before this request end.
    let partsEnd: Int64
    /// Where the parts started so far end.
    private var sent: Int64
    /// The digest of the upload up to `sent`.
    private var digest: ResumableSHA256
    private var pending: [(task: Task<S3Client.Part, any Error>, fed: Fed)] = []
    private var stored: [Fed] = []
    private var failure: MediaError?

    /// A feed for one request: the parts recorded end at `partsEnd`, with the digest `midstate` after them
    /// (nil when there are none), and the request appends from `start` on.
    package init(
        client: S3Client, key: String, uploadID: String, path: String, length: Int64, partsEnd: Int64,
        midstate: ResumableSHA256.Midstate?, start: Int64
    ) {
        self.client = client
        self.key = key
        self.uploadID = uploadID
        self.path = path
        self.length = length
        self.start = start
        self.partsEnd = partsEnd
        sent = partsEnd
        digest = midstate.map(ResumableSHA256.init(resuming:)) ?? ResumableSHA256()
    }

    /// The request appended `appended` bytes so far: every whole part not yet sent starts. Throws
    /// `storage_unavailable` when the store failed a part.
    package func grew(to appended: Int64) async throws {
        while failure == nil, start + appended - sent >= Self.partSize {
            try await startPart(length: Self.partSize)
        }
        if let failure { throw failure }
    }

    /// The upload is whole in the file: its last part (shorter than the others, or none when the parts
    /// before fill it) starts.
    package func finish() async throws {
        if failure == nil, length > sent { try await startPart(length: length - sent) }
        if let failure { throw failure }
    }

    /// Waits for every part under way and returns the parts stored in a row from the first sent.
    package func settle() async -> Settled {
        while !pending.isEmpty { await collectOldest() }
        let end = (stored.last.map { $0.size + Int64($0.number - 1) * Self.partSize }) ?? partsEnd
        var last = stored.last?.digest
        return Settled(
            parts: stored, end: end, midstate: last?.midstate,
            sha256: end == length ? last?.finalize() : nil, failure: failure)
    }

    /// Starts part `sent / partSize + 1`, `length` bytes from `sent`, once fewer than two are in flight.
    private func startPart(length: Int64) async throws {
        if pending.count >= InputObjectPut.inFlight { await collectOldest() }
        guard failure == nil else { return }
        let (offset, path, running) = (sent, path, digest)
        let (after, sha256) = try await NIOThreadPool.singleton.runIfActive {
            try Self.read(path, from: offset, count: length, into: running)
        }
        digest = after
        sent += length
        let (client, key, uploadID, number) = (client, key, uploadID, Int(offset / Self.partSize) + 1)
        let task = Task {
            try await client.uploadPart(
                key, uploadID: uploadID, number: number, body: .fileSlice(path, from: offset, count: length),
                sha256Hex: sha256)
        }
        pending.append((task, Fed(number: number, etag: "", size: length, digest: after)))
    }

    /// Waits for the oldest part in flight; after a failure the parts still in flight are of no use.
    private func collectOldest() async {
        let (task, fed) = pending.removeFirst()
        do {
            let part = try await task.value
            if failure == nil {
                stored.append(Fed(number: fed.number, etag: part.etag, size: fed.size, digest: fed.digest))
            }
        } catch {
            if failure == nil { failure = InputObjectPut.failure(error) }
        }
    }

    /// Reads `count` bytes of `path` from `offset`, adding them to `digest`; returns it and their own SHA-256.
    private static func read(_ path: String, from offset: Int64, count: Int64, into digest: ResumableSHA256)
        throws -> (ResumableSHA256, String)
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError(.storageUnavailable, "cannot read \(path) to send it") }
        defer { close(descriptor) }
        var running = digest
        let part = SHA256Hasher()
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { block.deallocate() }
        var done: Int64 = 0
        while done < count {
            let read = pread(
                descriptor, block.baseAddress, Int(min(Int64(block.count), count - done)), off_t(offset + done))
            guard read > 0 else { throw MediaError(.storageUnavailable, "\(path) ended before byte \(offset + count)") }
            let bytes = UnsafeRawBufferPointer(rebasing: block[0..<read])
            running.update(bytes)
            part.update(bytes)
            done += Int64(read)
        }
        return (running, part.finalize())
    }
}
