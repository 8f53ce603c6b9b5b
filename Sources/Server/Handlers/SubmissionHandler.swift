import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

/// `POST /jobs/{kind}` and its `PUT` forms: a job submitted with its inputs in the body, by URL, or by
/// the ids of finished tus uploads, answered as soon as it is queued (or, with `wait`, once it ended).
///
/// Everything that can be decided from the head is decided before the body is read, so a refused upload
/// costs nothing; the received files are removed (tus uploads unlocked) whenever the job is not made.
struct SubmissionHandler {
    let configuration: ServerConfiguration
    let jobs: JobService
    let access: JobAccess
    let intake: JobIntake
    let uploads: UploadReceiver
    /// The tus uploads a submission may name as its inputs.
    let resumable: ResumableHandler
    let prober: MediaProber
    let diskSpace: DiskSpaceCheck
    let store: JobStore
    let threadPool: NIOThreadPool

    /// `POST /jobs/{kind}` (and `PUT`, with or without a file name after it): checks kind, conditions, size,
    /// capacity and options from the head alone (so a refused upload is never read), receives the body,
    /// creates the job and queues it; a raw body that may arrive while its job runs (`arrivingPart`) makes
    /// and queues the job once its head has been screened. The upload's name is the path's last segment or
    /// the `filename` option for a raw body, else the file part's name.
    ///
    /// With `--objects` the job's id is chosen first: its inputs go into the bucket under it while they
    /// arrive, and a submission that makes no job removes what it put there.
    func createJob(_ request: Request) async throws -> Response {
        let id = JobStore.newID()
        guard let objects = jobs.objects else { return try await createJob(request, id: id) }
        do {
            return try await createJob(request, id: id)
        } catch {
            if await jobs.record(id) == nil { await objects.discard(job: id) }
            throw error
        }
    }

    private func createJob(_ request: Request, id: String) async throws -> Response {
        let kindName = try request.parameter("kind")
        guard let kind = JobKind(rawValue: kindName) else {
            throw ServiceError.notFound(
                "no job kind '\(kindName)'; kinds: \(JobKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // The job this creates has no representation yet: `If-Match` fails, `If-None-Match: *` holds.
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil, exists: false)
        let requestedName = try SourceName.requested(request)
        if let length = request.contentLength, length > configuration.maxUpload {
            throw ServiceError(
                .payloadTooLarge, "payload_too_large",
                "the body (\(length) bytes) is over the \(configuration.maxUpload)-byte upload limit")
        }
        try await intake.checkCapacity()
        try await diskSpace.check(request)
        // The body counts against the caller's quota from here until its job's record does.
        let hold = try jobs.ledger.hold(request.contentLength ?? 0, for: request.caller?.name)
        defer { hold?.release() }
        let wait = try request.waitSeconds()
        let idempotency = try IdempotencyKey(request.head.headers, owner: request.caller?.name)
        var values = request.query
        values["wait"] = nil
        values["filename"] = nil
        var callback = values.removeValue(forKey: "callback_url")
        if let callback { _ = try configuration.webhooks.check(callback) }
        var urls = InputURLs()
        try urls.take(kind, from: &values, policy: configuration.egress)
        var targets = OutputURLs()
        try targets.take(from: &values, policy: configuration.egress)
        var received = try await resumable.claimUploads(kind, &values, request)
        let multipart = received.isEmpty ? try MultipartBoundary(request.head.headers) : nil
        if multipart == nil {
            do {
                _ = try JobIntake.options(kind, values)
            } catch {
                await discard(received)
                throw error
            }
        }

        if received.isEmpty, multipart == nil, urls.isEmpty {
            let options = try JobIntake.options(kind, values)
            if let part = try arrivingPart(request, kind, options, idempotency: idempotency) {
                let submission = ArrivingSubmission(
                    kind: kind, part: part, options: options, length: request.contentLength ?? 0,
                    sourceName: requestedName, callback: callback, targets: targets, wait: wait)
                return try await createArrivingJob(request, submission, hold: hold)
            }
        }
        if received.isEmpty, multipart == nil, !urls.isEmpty {
            try await requireNoBody(request)
        } else if received.isEmpty {
            let destination = jobs.objects.map { InputDestination(objects: $0, job: id, kind: kind) }
            received = try await receiveBody(
                request, kind, multipart: multipart, hold: hold, destination: destination, values: &values,
                callback: &callback)
            do {
                try urls.take(kind, from: &values, policy: configuration.egress)
                try targets.take(from: &values, policy: configuration.egress)
            } catch {
                await discard(received)
                throw error
            }
        }
        do {
            let options = try JobIntake.options(kind, values)
            if let both = kind.inputs.first(where: { received[$0.name] != nil && urls.names.contains($0.storedName) }) {
                throw ServiceError(
                    .badRequest, "invalid_option",
                    "input '\(both.name)' is given both as a file and as \(InputURLs.field(of: both))")
            }
            let parts = kind.inputs.filter { received[$0.name] != nil || urls.names.contains($0.storedName) }
            do {
                try kind.checkParts(Set(parts.map(\.name)), options: options)
            } catch let error as MediaError {
                throw ServiceError(error)
            }
            guard !received.isEmpty || !urls.isEmpty else {
                throw ServiceError(
                    .badRequest, "missing_input",
                    "no input: send the file as the body or as part "
                        + "\(kind.inputs.map { "'\($0.name)'" }.joined(separator: " or ")), or its URL as "
                        + kind.inputs.map(InputURLs.field).joined(separator: " or "))
            }
            // A tus upload in the bucket alone (`--objects`: no path here) is judged by the job's run.
            for (part, upload) in received where !upload.file.path.isEmpty {
                let path = upload.file.path
                try await threadPool.runIfActive { try InputScreen.check(path, part: part, kind: kind) }
            }
            // A job's worker may map at most --job-memory; in-process jobs have no limit of their own.
            let memoryLimit = configuration.isolation.mode == .process ? configuration.isolation.jobMemory : nil
            if let admission = try kind.admission(for: options, memoryLimit: memoryLimit) {
                for upload in received.values where !upload.file.path.isEmpty {
                    try await prober.admit(upload.file.path, admission)
                }
            }
            if let callback { _ = try configuration.webhooks.check(callback) }
            let fingerprint = IdempotencyEntry(
                jobID: id, createdAt: Date(), options: options, callbackURL: callback,
                inputs: Dictionary(uniqueKeysWithValues: received.map { ($0.key, $0.value.file.sha256) })
                    .merging(urls.fingerprints) { file, _ in file })
            if let idempotency, let replay = try await replay(idempotency, fingerprint, wait: wait) {
                await discard(received)
                try? await jobs.objects?.removeJob(id)
                return replay
            }
            try await intake.checkCapacity()
            let record = try await intake.create(
                id: fingerprint.jobID, options: options, received: received,
                sourceName: requestedName
                    ?? received.values.compactMap({ $0.filename.flatMap(SourceName.clean) }).first ?? urls.sourceName,
                owner: request.caller?.name, callbackURL: callback, urls: urls, targets: targets)
            await release(received)
            if let idempotency {
                if let replay = try await enqueue(record, claiming: idempotency, fingerprint, wait: wait) {
                    return replay
                }
            } else {
                try await jobs.enqueue(record)
            }
            hold?.release()
            return try await access.answer(record.id, wait: wait, created: true)
        } catch {
            await discard(received)
            throw error
        }
    }

    /// The inputs sent in the body: multipart file parts (whose fields join `values`, `callback_url` among
    /// them) or one raw file; `hold` grows with a body of unknown length. With `destination` the files go
    /// into the bucket as they arrive, but for a raw body whose part only its first bytes tell (mux): that
    /// one is put whole when the job is made.
    private func receiveBody(
        _ request: Request, _ kind: JobKind, multipart: MultipartBoundary?, hold: StorageHold?,
        destination: InputDestination?, values: inout [String: String], callback: inout String?
    ) async throws -> [String: UploadReceiver.Part] {
        guard let boundary = multipart?.boundary else {
            let lone = kind.loneInput?.name
            let file = try await uploads.receiveRaw(request.body, hold: hold, destination: destination, part: lone)
            return [
                try await rawPartName(kind, file): UploadReceiver.Part(
                    file: file, filename: nil, inBucket: destination != nil && lone != nil)
            ]
        }
        let form = try await uploads.receiveMultipart(
            request.body, boundary: boundary, fileParts: kind.inputs.map(\.name), hold: hold,
            destination: destination)
        for (key, value) in form.fields {
            guard values[key] == nil else {
                await discard(form.files)
                throw ServiceError(
                    .badRequest, "invalid_option", "option \(key) is given both in the query and the form")
            }
            values[key] = value
        }
        if let field = values.removeValue(forKey: "callback_url") { callback = field }
        return form.files
    }

    /// Raw bodies carry one input: the kind's lone input, or for a kind of several parts without one
    /// (mux), the part its first bytes say.
    private func rawPartName(_ kind: JobKind, _ file: UploadedFile) async throws -> String {
        if let lone = kind.loneInput { return lone.name }
        let parts = kind.inputs
        let verdict = try await threadPool.runIfActive { try InputSniffer.sniff(path: file.path) }
        if case .container(let container) = verdict,
            let part = parts.first(where: { $0.containers.contains(container) })
        {
            return part.name
        }
        await threadPool.removeUpload(at: file.path)
        throw ServiceError(
            .unsupportedMediaType, "unsupported_format",
            "a raw \(kind) body must be \(parts.map(\.summary).joined(separator: " or ")); "
                + "send both as multipart parts \(parts.map { "'\($0.name)'" }.joined(separator: " and "))")
    }

    /// A submission whose inputs come from URLs has no body to read: a body is refused rather than dropped.
    private func requireNoBody(_ request: Request) async throws {
        let refusal = ServiceError(
            .badRequest, "invalid_request", "send the input either as the body or as a URL option, not both")
        if let length = request.contentLength, length > 0 { throw refusal }
        while let chunk = try await request.body.next() {
            if chunk.readableBytes > 0 { throw refusal }
        }
    }

    /// Removes received files that will not become a job; tus uploads are only unlocked, to be used again.
    private func discard(_ received: [String: UploadReceiver.Part]) async {
        for part in received.values {
            if let upload = part.resumable {
                await upload.close()
            } else {
                await threadPool.removeUpload(at: part.file.path)
            }
        }
    }

    /// Removes the tus uploads whose bytes the job just stored took.
    private func release(_ received: [String: UploadReceiver.Part]) async {
        for case let upload? in received.values.map(\.resumable) {
            try? await upload.delete()
            jobs.ledger.forgetUpload(upload.upload.id)
            await upload.close()
        }
    }
}
