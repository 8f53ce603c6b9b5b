import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOPosix

/// A job that starts while its raw body still arrives: it is made and queued once the head of the body
/// has been screened, its worker reads the input as it grows, and it ends only once the body has ended
/// and passed its checks; a body that fails (cut, over a limit) fails the job with the upload's error.
extension SubmissionHandler {
    /// What a job started while its body arrives is made of, decided from the head and query alone.
    struct ArrivingSubmission {
        var kind: JobKind
        /// The kind's one input, which the body is.
        var part: JobInputPart
        var options: JobOptions
        /// The body's `Content-Length`.
        var length: Int64
        var sourceName: String?
        var callback: String?
        var targets: OutputURLs
        var wait: Double?
    }

    /// The kind's lone input, when a raw body for it may start its job before it has ended: with its
    /// `Content-Length` known, workers in processes of their own (whose reads of the growing file wait,
    /// and which can be stopped when the upload fails), a server of its own without `--objects` (whose
    /// inputs go to the bucket before the job is queued), no `Idempotency-Key` (whose
    /// fingerprint needs the input's SHA-256 first) and no memory admission (which probes the whole input).
    func arrivingPart(
        _ request: Request, _ kind: JobKind, _ options: JobOptions, idempotency: IdempotencyKey?
    ) throws -> JobInputPart? {
        guard configuration.isolation.mode == .process, configuration.replicas == nil, jobs.objects == nil,
            idempotency == nil,
            let length = request.contentLength, length > 0, let part = kind.loneInput
        else { return nil }
        do {
            try kind.checkParts([part.name], options: options)
            guard try kind.admission(for: options, memoryLimit: configuration.isolation.jobMemory) == nil else {
                return nil
            }
        } catch let error as MediaError {
            throw ServiceError(error)
        }
        return part
    }

    /// Receives the head of the body (`InputSniffer.headLength` bytes, or all of a shorter one), screens
    /// it, makes and queues the job, then receives the rest into the job's input as the job may already
    /// read it. Answers once the body has ended, as for any submission.
    func createArrivingJob(_ request: Request, _ submission: ArrivingSubmission, hold: StorageHold?) async throws
        -> Response
    {
        let (kind, part) = (submission.kind, submission.part)
        let writer = try await BlockWriter<UploadFile>(store: store, threadPool: threadPool)
        var created: String? = nil
        do {
            try await uploads.receive(request.body, into: writer, hold: hold, upTo: Int64(InputSniffer.headLength))
            try await writer.drain()
            let path = writer.sink.path
            try await threadPool.runIfActive { try InputScreen.check(path, part: part.name, kind: kind) }
            if let callback = submission.callback { _ = try configuration.webhooks.check(callback) }
            try await intake.checkCapacity()
            let record = try await intake.create(
                id: JobStore.newID(), options: submission.options, received: [:], sourceName: submission.sourceName,
                owner: request.caller?.name, callbackURL: submission.callback, targets: submission.targets,
                arriving: (ArrivingInput(name: part.storedName, size: submission.length), path))
            try await jobs.enqueueArriving(record)
            created = record.id
            try await uploads.receive(request.body, into: writer, hold: hold)
            let file = try await writer.finish()
            guard file.size == submission.length else {
                throw ServiceError.invalidRequest(
                    "the body ended after \(file.size) of the \(submission.length) bytes its Content-Length declared")
            }
            try await jobs.inputArrived(record.id, name: part.storedName, file: file, releasing: hold)
            return try await access.answer(record.id, wait: submission.wait, created: true)
        } catch {
            await writer.discard()
            if let created {
                let failure = ServiceError(describing: error)
                await jobs.inputFailed(created, JobError(code: failure.code, message: failure.message))
            }
            throw error
        }
    }
}
