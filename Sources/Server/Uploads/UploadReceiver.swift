import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

/// Streams request bodies into the store's upload files.
///
/// Bytes are gathered into 1 MiB blocks and written (and hashed) on the blocking-I/O thread pool while
/// the connection waits, so the socket is read only as fast as the disk takes the data and memory stays
/// at about one block per upload, whatever the file size.
struct UploadReceiver {
    let store: JobStore
    let threadPool: NIOThreadPool
    let maxUpload: Int64
    static let blockSize = 1 << 20

    /// A file received from a multipart part, with the name the client gave it, or a complete tus upload
    /// named by id (held locked until the job is stored).
    struct Part {
        var file: UploadedFile
        var filename: String?
        var resumable: UploadWriter? = nil
        /// Whether the file is in the bucket of `--objects` already, put while it arrived.
        var inBucket = false
        /// The key of the object a tus upload without a kind became (`--objects`), which the job's input
        /// is copied from.
        var object: String? = nil
    }

    /// The whole body as one file. An empty body is `missing_input`; one that passes the caller's quota as
    /// it arrives (`hold`) is `quota_exceeded`. With `destination`, the body goes into the bucket as it
    /// arrives as input `part` of the destination's job (503 `storage_unavailable` when the store fails).
    func receiveRaw(
        _ body: RequestBody, hold: StorageHold? = nil, destination: InputDestination? = nil, part: String? = nil
    ) async throws -> UploadedFile {
        let writer = try await BlockWriter<UploadFile>(
            store: store, threadPool: threadPool,
            object: destination.map { destination in { path in part.flatMap { destination.put(part: $0, path: path) } }
            })
        do {
            while let chunk = try await body.next() {
                try checkSize(body.received, hold)
                try await writer.append(chunk)
            }
            let file = try await writer.finish()
            guard file.size > 0 else {
                await threadPool.removeUpload(at: file.path)
                throw ServiceError(.badRequest, "missing_input", "the request has no body: send the input file")
            }
            return file
        } catch {
            await writer.discard()
            throw InputDestination.refusal(error)
        }
    }

    /// Appends the body to `writer` until it ends or at least `limit` bytes of it came, under the same
    /// limits as `receiveRaw`: for a body whose job starts while it arrives.
    func receive(
        _ body: RequestBody, into writer: BlockWriter<UploadFile>, hold: StorageHold?, upTo limit: Int64 = .max
    ) async throws {
        while body.received < limit, let chunk = try await body.next() {
            try checkSize(body.received, hold)
            try await writer.append(chunk)
        }
    }

    /// A `multipart/form-data` body: parts named in `fileParts` become files, other parts become fields.
    /// With `destination`, each file part goes into the bucket as it arrives.
    func receiveMultipart(
        _ body: RequestBody, boundary: String, fileParts: [String], hold: StorageHold? = nil,
        destination: InputDestination? = nil
    ) async throws -> (files: [String: Part], fields: [String: String]) {
        let form = MultipartForm(
            boundary: boundary, fileParts: fileParts, store: store, threadPool: threadPool, destination: destination)
        do {
            while let chunk = try await body.next() {
                try checkSize(body.received, hold)
                try await form.consume(chunk)
            }
            return try await form.finish()
        } catch {
            await form.discard()
            throw InputDestination.refusal(error)
        }
    }

    /// 413 past `--max-upload`; 507 `quota_exceeded` when `hold` cannot grow to what was received.
    private func checkSize(_ received: Int64, _ hold: StorageHold?) throws {
        guard received <= maxUpload else {
            throw ServiceError(
                .payloadTooLarge, "payload_too_large", "the body is over the \(maxUpload)-byte upload limit")
        }
        do {
            try hold?.cover(received)
        } catch let error as StoreError {
            throw ServiceError(error)
        }
    }
}

extension NIOThreadPool {
    /// Deletes a received upload that will not become a job, off the event loop. A file already gone is
    /// fine: the aim is only that nothing is left behind.
    func removeUpload(at path: String) async {
        try? await runIfActive { try? FileManager.default.removeItem(atPath: path) }
    }
}
