import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

extension MediaService {
    /// `POST /jobs/{kind}` (and `PUT`, with or without a file name after it): checks kind, conditions, size,
    /// capacity and options from the head alone (so a refused upload is never read), receives the body,
    /// creates the job and queues it. The upload's name is the path's last segment or the `filename` option
    /// for a raw body, else the file part's name.
    func createJob(_ request: Request) async throws -> Response {
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
        try await checkCapacity()
        try await checkDiskSpace(request)
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
        var received = try await claimUploads(kind, &values, request)
        let multipart = received.isEmpty ? try MultipartBoundary(request.head.headers) : nil
        if multipart == nil { _ = try options(kind, values) }

        if received.isEmpty, multipart == nil, !urls.isEmpty {
            try await requireNoBody(request)
        } else if received.isEmpty {
            received = try await receiveBody(
                request, kind, multipart: multipart, hold: hold, values: &values, callback: &callback)
            do {
                try urls.take(kind, from: &values, policy: configuration.egress)
                try targets.take(from: &values, policy: configuration.egress)
            } catch {
                await discard(received)
                throw error
            }
        }
        do {
            let options = try options(kind, values)
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
            for (part, upload) in received {
                let path = upload.file.path
                try await threadPool.runIfActive { try InputScreen.check(path, part: part, kind: kind) }
            }
            // A job's worker may map at most --job-memory; in-process jobs have no limit of their own.
            let memoryLimit = configuration.isolation.mode == .process ? configuration.isolation.jobMemory : nil
            if let admission = try kind.admission(for: options, memoryLimit: memoryLimit) {
                for upload in received.values { try await admit(upload.file.path, admission) }
            }
            if let callback { _ = try configuration.webhooks.check(callback) }
            let fingerprint = IdempotencyEntry(
                jobID: JobStore.newID(), createdAt: Date(), options: options, callbackURL: callback,
                inputs: Dictionary(uniqueKeysWithValues: received.map { ($0.key, $0.value.file.sha256) })
                    .merging(urls.fingerprints) { file, _ in file })
            if let idempotency, let replay = try await replay(idempotency, fingerprint, wait: wait) {
                await discard(received)
                return replay
            }
            try await checkCapacity()
            let record = try await create(
                id: fingerprint.jobID, options: options, received: received,
                sourceName: requestedName
                    ?? received.values.compactMap({ $0.filename.flatMap(SourceName.clean) }).first ?? urls.sourceName,
                owner: request.caller?.name, callbackURL: callback, urls: urls, targets: targets)
            await release(received)
            if let idempotency, let replay = try await claim(idempotency, fingerprint, wait: wait) { return replay }
            await jobs.enqueue(record)
            hold?.release()
            return try await answer(record.id, wait: wait, created: true)
        } catch {
            await discard(received)
            throw error
        }
    }

    /// The inputs sent in the body: multipart file parts (whose fields join `values`, `callback_url` among
    /// them) or one raw file; `hold` grows with a body of unknown length.
    private func receiveBody(
        _ request: Request, _ kind: JobKind, multipart: MultipartBoundary?, hold: StorageHold?,
        values: inout [String: String], callback: inout String?
    ) async throws -> [String: UploadReceiver.Part] {
        guard let boundary = multipart?.boundary else {
            let file = try await uploads.receiveRaw(request.body, hold: hold)
            return [try await rawPartName(kind, file): UploadReceiver.Part(file: file, filename: nil)]
        }
        let form = try await uploads.receiveMultipart(
            request.body, boundary: boundary, fileParts: kind.inputs.map(\.name), hold: hold)
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

    /// The kind's options from string values; a bad one is a 400 with the engine's code.
    func options(_ kind: JobKind, _ values: [String: String]) throws -> JobOptions {
        do {
            return try kind.options(parsing: values)
        } catch let error as MediaError {
            throw ServiceError(error)
        }
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

    func create(
        id: String, options: JobOptions, received: [String: UploadReceiver.Part], sourceName: String?,
        owner: String?, callbackURL: String?, urls: InputURLs = InputURLs(), targets: OutputURLs = OutputURLs()
    ) async throws -> JobRecord {
        let delivered = try targets.deliveries(primaryName: try options.kind.primaryOutput(for: options))
        var inputs: [String: UploadedFile] = [:]
        for part in options.kind.inputs { inputs[part.storedName] = received[part.name]?.file }
        var record = JobRecord(
            id: id, createdAt: Date(), options: options,
            inputs: inputs.sorted { $0.key < $1.key }.map {
                JobInput(name: $0.key, size: $0.value.size, sha256: $0.value.sha256)
            },
            sourceName: sourceName, owner: owner, callbackURL: callbackURL)
        record.inputSources = urls.sources(options.kind)
        record.deliveries = targets.isEmpty ? nil : delivered.deliveries
        let egress = EgressTargets(inputs: urls.targets, outputs: delivered.urls)
        let (files, stored) = (inputs, record)
        try await threadPool.runIfActive { [store] in try store.create(stored, inputs: files, egress: egress) }
        return record
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
            if let upload = part.resumable { upload.close() } else { await threadPool.removeUpload(at: part.file.path) }
        }
    }

    /// Removes the tus uploads whose bytes the job just stored took.
    private func release(_ received: [String: UploadReceiver.Part]) async {
        for case let upload? in received.values.map(\.resumable) {
            let id = upload.upload.id
            try? await threadPool.runIfActive { [store] in try store.deleteResumable(id: id) }
            jobs.ledger.forgetUpload(id)
            upload.close()
        }
    }

    func checkCapacity() async throws {
        switch await jobs.capacity() {
        case .available: return
        case .full(let retryAfter):
            throw ServiceError(
                .tooManyRequests, "queue_full",
                "the queue is full (\(configuration.maxQueued) jobs waiting); retry later",
                headers: [("Retry-After", String(retryAfter))])
        case .shuttingDown:
            throw ServiceError(.serviceUnavailable, "shutting_down", "the server is shutting down")
        }
    }

    /// 202 with `Location` (or 200 once ended, after `wait`), or 200 for `GET`.
    func answer(_ id: String, wait: Double?, created: Bool) async throws -> Response {
        let record: JobRecord?
        if let wait { record = await jobs.wait(for: id, seconds: wait) } else { record = await jobs.record(id) }
        guard let record else { throw ServiceError.notFound("no job \(id)") }
        return try answer(record, created: created)
    }

    /// The record as the job's JSON: 202 with `Location` for a job just created and still under way, else 200.
    func answer(_ record: JobRecord, created: Bool) throws -> Response {
        let id = record.id
        let body: ByteBuffer
        do {
            body = try encodedJobs.body(for: record)
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "encoding job \(id) failed: \(error)")
        }
        var response = Response(
            status: created && !record.state.isTerminal ? .accepted : .ok,
            headers: ["content-type": "application/json"], body: .bytes(body))
        if created { response.headers.add(name: "location", value: "/jobs/\(id)") }
        return response
    }

    /// `GET /jobs/{id}`, with `wait` to long-poll until the job ends.
    func showJob(_ request: Request) async throws -> Response {
        let record = try await job(request)
        guard let wait = try request.waitSeconds(), !record.state.isTerminal else {
            return try answer(record, created: false)
        }
        return try await answer(record.id, wait: wait, created: false)
    }

    /// `GET /jobs?state=&kind=&limit=&cursor=`.
    func listJobs(_ request: Request) async throws -> Response {
        let query = try JobQuery(parameters: request.query)
        return .json(try JobPage.page(await jobs.allRecords().filter(request.maySee), query))
    }

    /// `DELETE /jobs/{id}`: cancels a queued or running job (200 with the job), deletes a finished one (204).
    func deleteJob(_ request: Request) async throws -> Response {
        let record = try await job(request)
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil)
        guard let cancelled = try await jobs.cancelOrDelete(record.id) else { return Response(status: .noContent) }
        return .json(cancelled)
    }

    /// `GET /jobs/{id}/log`: the job's log as text (its last MiB if it is longer).
    func showLog(_ request: Request) async throws -> Response {
        let record = try await job(request)
        let path = store.logPath(id: record.id)
        let text = try await threadPool.runIfActive { () -> String in
            guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
            defer { try? handle.close() }
            let size = (try? handle.seekToEnd()) ?? 0
            try? handle.seek(toOffset: size > 1 << 20 ? size - (1 << 20) : 0)
            return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        }
        return .text(text)
    }
}
