import Digests
import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// Receiving one chunk of a tus upload: the offset checked, the body streamed to the upload's data file
/// through the same double-buffered blocks as other uploads (written off the event loop, at the pace the
/// disk takes them), then verified, synced and answered with the new offset.
extension ResumableHandler {
    /// Appends the request's body to upload `id` at `offset` and answers 204 with the upload's fields; the
    /// upload becomes complete (and, when its metadata names a kind, a job) with its last byte.
    func appendChunk(
        _ id: String, _ request: Request, offset: Int64,
        checksum: ChunkChecksum?
    ) async throws -> Response {
        try await withUpload(id, for: request) { writer in
            try await append(request, to: writer, offset: offset, checksum: checksum)
        }
    }

    /// Appends the request's body to `writer`'s upload.
    private func append(
        _ request: Request, to writer: UploadWriter, offset: Int64, checksum: ChunkChecksum?
    ) async throws -> Response {
        guard offset == writer.offset else {
            throw ServiceError(
                .conflict, "offset_mismatch",
                "the upload holds \(writer.offset) bytes: send the chunk at Upload-Offset \(writer.offset), not \(offset)"
            )
        }
        let remaining = writer.upload.length - writer.offset
        if let length = request.contentLength, length > remaining {
            throw ServiceError(
                .payloadTooLarge, "payload_too_large",
                "the chunk (\(length) bytes) goes past Upload-Length: \(remaining) bytes are left")
        }
        if !request.body.finished {
            try await diskSpace.check(request, besides: writer.upload.id)
            do {
                try await receiveChunk(request.body, into: writer, remaining: remaining, checksum: checksum)
            } catch {
                noteProgress(writer)
                throw error
            }
            noteProgress(writer)
        }
        if writer.offset == writer.upload.length { try await complete(writer) }
        let state = ResumableUploadState(upload: writer.upload, offset: writer.offset, lastActivity: Date())
        let headers = TusProtocol.stateHeaders(state, expiry: configuration.uploadExpiry)
        return Response(status: .noContent, headers: headers)
    }

    /// Tells the storage ledger how much the upload holds now, so that what it received no longer counts
    /// as room promised to it (bytes are kept even from a chunk that failed).
    private func noteProgress(_ writer: UploadWriter) {
        if writer.hasData { jobs.ledger.uploadProgressed(writer.upload, offset: writer.offset) }
    }

    /// Streams the body into the upload. Bytes of a chunk cut off are kept (tus asks servers to keep what
    /// arrived) unless the chunk carries a checksum, which then cannot be verified: it is dropped whole, as
    /// is a chunk whose checksum does not match (460 `checksum_mismatch`).
    private func receiveChunk(
        _ body: RequestBody, into writer: UploadWriter, remaining: Int64,
        checksum: ChunkChecksum?
    ) async throws {
        writer.file.beginChunk(verifying: checksum?.algorithm)
        let blocks = BlockWriter(sink: writer.file, threadPool: threadPool)
        blocks.parts = writer.object?.beginChunk(at: writer.offset, length: writer.upload.length)
        do {
            while let bytes = try await body.next() {
                guard body.received <= remaining else {
                    throw ServiceError(
                        .payloadTooLarge, "payload_too_large",
                        "the chunk goes past Upload-Length: \(remaining) bytes were left")
                }
                try await blocks.append(bytes)
            }
            try await blocks.drain()
            try verify(writer, checksum)
        } catch {
            if checksum == nil {
                try? await blocks.drain()
                try? await writer.commit()
            } else {
                await blocks.settle()
                try? await writer.rollback()
            }
            if error is ChecksumMismatch {
                throw ServiceError(
                    TusProtocol.checksumMismatch, "checksum_mismatch",
                    "the chunk's \(checksum?.algorithm.rawValue ?? "") digest is not the Upload-Checksum sent; "
                        + "it was dropped: send it again from Upload-Offset \(writer.offset)")
            }
            throw error
        }
        try await writer.commit()
    }

    /// Throws `ChecksumMismatch` unless the chunk's digest is the one the client sent.
    private func verify(_ writer: UploadWriter, _ checksum: ChunkChecksum?)
        throws
    {
        guard let checksum else { return }
        guard writer.file.chunkChecksum() == checksum.digest else { throw ChecksumMismatch() }
    }
}

/// A chunk whose digest is not its `Upload-Checksum`.
private struct ChecksumMismatch: Error {}
