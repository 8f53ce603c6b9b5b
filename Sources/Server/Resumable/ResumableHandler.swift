import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// tus 1.0.0 at `/uploads`: `OPTIONS` (what the server speaks), `POST` (creation, with the first chunk
/// when it carries one), `HEAD`/`GET` (the offset; `GET` adds a JSON body), `PATCH` (a chunk at the
/// offset) and `DELETE` (termination). Uploads belong to the API token that created them; another token
/// gets 404, as for jobs.
struct ResumableHandler {
    /// `--max-upload`, `--upload-expiry` and `--webhook-*` (a kind's `callback_url` in the metadata).
    let configuration: ServerConfiguration
    /// The storage ledger (`jobs.ledger`), and the queue a completed upload's job joins.
    let jobs: JobService
    let intake: JobIntake
    let diskSpace: DiskSpaceCheck
    /// Where the uploads' records are: the data directory, or the replicas' database.
    let records: any UploadRecords
    let store: JobStore
    let threadPool: NIOThreadPool

    /// `OPTIONS /uploads`: the version, extensions, largest upload and checksum algorithms.
    func uploadOptions() -> Response {
        Response(
            status: .noContent,
            headers: [
                "Tus-Version": TusProtocol.version, "Tus-Extension": TusProtocol.extensions,
                "Tus-Max-Size": String(configuration.maxUpload),
                "Tus-Checksum-Algorithm": TusProtocol.checksumAlgorithms,
            ])
    }

    /// `POST /uploads`: checks length, metadata (a job's kind and options included), the caller's unfinished
    /// uploads (429 `too_many_uploads`), quota (507 `quota_exceeded`) and disk space (507
    /// `insufficient_storage`: the declared lengths still to come of every unfinished upload must fit above
    /// the reserve), creates the upload, and takes its first chunk when the request carries one
    /// (creation-with-upload).
    func createUpload(_ request: Request) async throws -> Response {
        try TusProtocol.requireVersion(request)
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil, exists: false)
        if request.head.headers.contains(name: "upload-defer-length") {
            throw ServiceError.invalidRequest("Upload-Defer-Length is not supported: send Upload-Length")
        }
        let length = try TusProtocol.count(request, "Upload-Length")
        guard length > 0 else { throw ServiceError(.badRequest, "empty_input", "Upload-Length must be 1 or more") }
        guard length <= configuration.maxUpload else {
            throw ServiceError(
                .payloadTooLarge, "payload_too_large",
                "Upload-Length \(length) is over the \(configuration.maxUpload)-byte upload limit (Tus-Max-Size)")
        }
        let metadata = try UploadMetadata.parse(request.head.headers.first(name: "upload-metadata"))
        _ = try UploadJobRequest(metadata, webhooks: configuration.webhooks)
        let carriesChunk = !request.body.finished
        if carriesChunk { try TusProtocol.requireChunk(request) }
        let checksum = try TusProtocol.checksum(request)
        let upload = ResumableUpload(
            id: JobStore.newID(), length: length, metadata: metadata, owner: request.caller?.name, createdAt: Date())
        let free = try await threadPool.runIfActive { [store] in store.freeBytes() }
        try jobs.ledger.admitUpload(upload, freeBytes: free)
        do {
            try await records.create(upload)
        } catch {
            jobs.ledger.forgetUpload(upload.id)
            throw error
        }
        let location = "/uploads/\(upload.id)"
        var response: Response
        do {
            response = try await appendChunk(upload.id, request, offset: 0, checksum: carriesChunk ? checksum : nil)
        } catch var error as ServiceError {
            // The upload exists: the client resumes it from its offset.
            error.headers.append(("Location", location))
            throw error
        }
        response.status = .created
        response.headers.add(name: "Location", value: location)
        return response
    }

    /// `HEAD /uploads/{id}` (tus) and `GET /uploads/{id}` (the same fields and a JSON body).
    func showUpload(_ request: Request) async throws -> Response {
        if request.method == .HEAD { try TusProtocol.requireVersion(request) }
        let state = try await uploadState(request)
        var response = Response.json(UploadStatus(state, expiry: configuration.uploadExpiry))
        response.headers.add(contentsOf: TusProtocol.stateHeaders(state, expiry: configuration.uploadExpiry))
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// `PATCH /uploads/{id}`: a chunk at `Upload-Offset`.
    func patchUpload(_ request: Request) async throws -> Response {
        try TusProtocol.requireVersion(request)
        try TusProtocol.requireChunk(request)
        let offset = try TusProtocol.count(request, "Upload-Offset")
        let checksum = try TusProtocol.checksum(request)
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil)
        return try await appendChunk(try request.parameter("id"), request, offset: offset, checksum: checksum)
    }

    /// `DELETE /uploads/{id}`: termination; 204, then 404 for the upload.
    func deleteUpload(_ request: Request) async throws -> Response {
        try TusProtocol.requireVersion(request)
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil)
        try await withUpload(try request.parameter("id"), for: request) { writer in
            try await writer.delete()
            jobs.ledger.forgetUpload(writer.upload.id)
        }
        return Response(status: .noContent)
    }

    /// The upload a request names, without its lock: 404 when there is none or another token made it, 410
    /// `upload_expired` once it has expired (until the sweep removes it; then 404).
    func uploadState(_ request: Request) async throws -> ResumableUploadState {
        let id = try request.parameter("id")
        let state = try await records.state(id)
        guard let state, request.maySee(state.upload) else { throw ServiceError.notFound("no upload \(id)") }
        try checkNotExpired(state)
        return state
    }

    /// Upload `id`, locked for writing (423 `upload_locked` while another request writes to
    /// it), with the same 404 and 410 as `uploadState`.
    func openUpload(_ id: String, for request: Request) async throws -> UploadWriter {
        let writer = try await records.open(id)
        guard let writer, request.maySee(writer.upload) else {
            await writer?.close()
            throw ServiceError.notFound("no upload \(id)")
        }
        do {
            if let state = try await records.state(id) { try checkNotExpired(state) }
        } catch {
            await writer.close()
            throw error
        }
        return writer
    }

    /// `body`'s value with upload `id` open for writing (as `openUpload` opens it), closed after, whether
    /// `body` throws or not.
    func withUpload<T>(_ id: String, for request: Request, _ body: (UploadWriter) async throws -> T)
        async throws -> T
    {
        let writer = try await openUpload(id, for: request)
        do {
            let value = try await body(writer)
            await writer.close()
            return value
        } catch {
            await writer.close()
            throw error
        }
    }

    private func checkNotExpired(_ state: ResumableUploadState) throws {
        guard state.expiresAt(after: configuration.uploadExpiry) > Date() else {
            throw ServiceError(.gone, "upload_expired", "upload \(state.upload.id) has expired; start a new one")
        }
    }
}

extension Request {
    /// Whether the caller may see an upload: as for jobs, its owner or an admin (anyone without tokens).
    func maySee(_ upload: ResumableUpload) -> Bool {
        guard let caller else { return true }
        return caller.isAdmin || upload.owner == caller.name
    }
}
