import Foundation
import JobDatabase
import JobStore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// What a complete tus upload becomes: the job its metadata names, made when the last byte arrives, or an
/// input that `POST /jobs/{kind}` takes by id.
extension ResumableHandler {
    /// Records the complete upload's SHA-256 and, when its metadata names a kind, makes it that job, with
    /// the same checks as an upload sent with the job (queue capacity, input screening). Made once: the job's
    /// id is recorded before the job is stored, so a retried last chunk finds the job instead of making
    /// another. An upload the screening refuses is deleted (its bytes can never become that job). With
    /// `--objects` the upload's object is the job's input already (its key chosen with the job's id when the
    /// upload was made): the job is made from the bucket, and its first bytes are judged by the run, not
    /// screened here (no replica holds them).
    func complete(_ writer: UploadWriter) async throws {
        if let id = writer.upload.jobID {
            let stored = try await threadPool.runIfActive { [store] in try store.load(id: id) != nil }
            if stored || !writer.hasData { return }
        }
        let file = try await writer.completedFile()
        guard let job = try UploadJobRequest(writer.upload.metadata, webhooks: configuration.webhooks) else { return }
        let options = try JobIntake.options(job.kind, job.options)
        try await intake.checkCapacity()
        let part = job.part
        let inBucket = writer.object != nil
        if !inBucket {
            do {
                try await threadPool.runIfActive { try InputScreen.check(file.path, part: part, kind: job.kind) }
            } catch {
                try? await writer.delete()
                jobs.ledger.forgetUpload(writer.upload.id)
                throw error
            }
        }
        var claimed = writer.upload
        let id = claimed.jobID ?? writer.object?.object.job ?? JobStore.newID()
        claimed.jobID = id
        let upload = claimed
        try await writer.save(upload)
        let record = try await intake.create(
            id: id, options: options,
            received: [part: UploadReceiver.Part(file: file, filename: nil, inBucket: inBucket)],
            sourceName: job.sourceName, owner: upload.owner, callbackURL: job.callbackURL)
        try await writer.handOver()
        try await jobs.enqueue(record)
        // Its bytes are the job's input now, counted with the job.
        jobs.ledger.forgetUpload(upload.id)
    }

    /// The inputs a job request names by upload id — `upload=<id>` for the kind's lone input, `<part>_upload=<id>`
    /// for each other part (mux: `audio_upload`, `video_upload`; encode: beside `upload`) — taken out of `values`.
    /// Each must be a complete upload of the caller's without a kind of its own (409 `upload_incomplete`,
    /// `upload_in_use`); it stays locked until the job is stored (`release`) or the request fails
    /// (`discard`). A request naming uploads sends no body (400 `invalid_request`).
    func claimUploads(_ kind: JobKind, _ values: inout [String: String], _ request: Request) async throws
        -> [String: UploadReceiver.Part]
    {
        var claimed: [String: UploadReceiver.Part] = [:]
        do {
            for part in kind.inputs {
                let field = part.name == kind.loneInput?.name ? "upload" : "\(part.name)_upload"
                guard let id = values.removeValue(forKey: field)
                else { continue }
                claimed[part.name] = try await claimUpload(id, request)
            }
            if !claimed.isEmpty, !request.body.finished {
                throw ServiceError.invalidRequest("a job made from uploads takes no body: send inputs one way")
            }
        } catch {
            for part in claimed.values { await part.resumable?.close() }
            throw error
        }
        return claimed
    }

    private func claimUpload(_ id: String, _ request: Request) async throws -> UploadReceiver.Part {
        let writer = try await openUpload(id, for: request)
        do {
            guard writer.offset == writer.upload.length else {
                throw ServiceError(
                    .conflict, "upload_incomplete",
                    "upload \(id) holds \(writer.offset) of its \(writer.upload.length) bytes; finish it first")
            }
            guard writer.upload.metadata["kind"] == nil, writer.hasData else {
                throw ServiceError(
                    .conflict, "upload_in_use", "upload \(id) names a kind: it becomes that job by itself")
            }
            let file = try await writer.completedFile()
            return UploadReceiver.Part(
                file: file, filename: writer.upload.metadata["filename"], resumable: writer,
                object: writer.object?.object.key)
        } catch {
            await writer.close()
            throw error
        }
    }
}
