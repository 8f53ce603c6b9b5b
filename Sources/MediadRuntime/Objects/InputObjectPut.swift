import MediaCore
import MediadClient
import ObjectStorage

/// An input put into the bucket while its request body is still arriving: the body grows an upload file
/// on the receiving replica, and each whole 8 MiB of it goes up as a part of a multipart upload read from
/// that file (the page cache, no copy in memory), at most two parts in flight. A body that ends under
/// 8 MiB is one PUT checked against its SHA-256 instead.
///
/// The body is read only as fast as the store takes the parts (`grew` waits for the oldest part once two
/// are in flight), so the object is at most two parts behind the file when the body ends. `finish`
/// completes the object; `abort` drops whatever was sent, so a cut or refused body leaves no object and no
/// multipart upload behind. One owner calls it, one call at a time.
package actor InputObjectPut {
    let client: S3Client
    /// Where an upload that cannot be aborted (the store does not answer) waits for the store's return.
    let leftovers: ObjectLeftovers
    /// The object's key, relative to the prefix.
    package let key: String
    /// The upload file the body grows.
    let path: String
    static let partSize: Int64 = 8 << 20
    static let inFlight = 2
    static let contentType = "application/octet-stream"

    private var uploadID: String?
    /// Bytes of the file handed to parts so far.
    private var sent: Int64 = 0
    private var parts: [S3Client.Part] = []
    /// The parts being sent, oldest first.
    private var pending: [Task<S3Client.Part, any Error>] = []

    init(client: S3Client, leftovers: ObjectLeftovers, key: String, path: String) {
        self.client = client
        self.leftovers = leftovers
        self.key = key
        self.path = path
    }

    /// The file holds `size` bytes now: every whole part not yet sent starts, each waiting for the oldest
    /// part once `inFlight` are under way. Throws `storage_unavailable` when the store fails a part.
    package func grew(to size: Int64) async throws {
        do {
            while size - sent >= Self.partSize { try await startPart(length: Self.partSize) }
        } catch {
            throw Self.failure(error)
        }
    }

    /// The body ended with `size` bytes whose SHA-256 is `sha256`: the rest goes up and the object is
    /// completed (or, under one part, put whole). Throws `storage_unavailable`; the caller aborts then.
    package func finish(size: Int64, sha256: String) async throws {
        do {
            guard uploadID != nil else {
                try await client.putObject(key, body: .file(path), contentType: Self.contentType, sha256Hex: sha256)
                return
            }
            if size > sent { try await startPart(length: size - sent) }
            while !pending.isEmpty { parts.append(try await pending.removeFirst().value) }
            try await client.completeMultipartUpload(key, uploadID: uploadID ?? "", parts: parts)
            self.uploadID = nil
        } catch {
            throw Self.failure(error)
        }
    }

    /// Stops the parts under way and aborts the multipart upload, if one was started (at once, else once the
    /// store answers again: `ObjectLeftovers`); an object already put whole is the caller's to delete (it
    /// removes the job's objects).
    package func abort() async {
        for part in pending { part.cancel() }
        for part in pending { _ = try? await part.value }
        pending.removeAll()
        guard let uploadID else { return }
        self.uploadID = nil
        await JobObjects.clean(.upload(key: key, uploadID: uploadID), with: client, leftovers: leftovers)
    }

    /// Starts the next part, `length` bytes from `sent` on, once fewer than `inFlight` are under way.
    private func startPart(length: Int64) async throws {
        if pending.count >= Self.inFlight { parts.append(try await pending.removeFirst().value) }
        let uploadID = try await openUpload()
        let (client, key, path, offset) = (client, key, path, sent)
        let number = Int(offset / Self.partSize) + 1
        sent += length
        pending.append(
            Task {
                try await client.uploadPart(
                    key, uploadID: uploadID, number: number, body: .fileSlice(path, from: offset, count: length))
            })
    }

    /// The multipart upload's id, started at the first part.
    private func openUpload() async throws -> String {
        if let uploadID { return uploadID }
        let id = try await client.createMultipartUpload(key, contentType: Self.contentType)
        uploadID = id
        return id
    }

    static func failure(_ error: any Error) -> MediaError {
        if let error = error as? MediaError { return error }
        return MediaError(.storageUnavailable, "the input could not be stored in the bucket: \(error)")
    }
}
