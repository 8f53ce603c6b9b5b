import Foundation
import JobStore
import MediaCore
import MediaJobs
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// Making a job from received inputs, the one way both `POST /jobs/{kind}` and a completed tus upload
/// whose metadata names a kind take: options parsed with the engine's codes, the queue's capacity
/// checked, the record and its inputs stored together.
struct JobIntake {
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool
    /// `--max-queued`, named in the refusal of a full queue.
    let maxQueued: Int

    /// The kind's options from string values; a bad one is a 400 with the engine's code.
    static func options(_ kind: JobKind, _ values: [String: String]) throws -> JobOptions {
        do {
            return try kind.options(parsing: values)
        } catch let error as MediaError {
            throw ServiceError(error)
        }
    }

    /// 429 `queue_full` (with `Retry-After`) when the queue holds `--max-queued` jobs, 503 `shutting_down`
    /// once the server stops taking jobs, 503 `store_unavailable` (with `Retry-After`) while the replicas'
    /// database cannot be reached, 503 `storage_unavailable` (with `Retry-After`) while the bucket of
    /// `--objects` does not answer.
    func checkCapacity() async throws {
        switch await jobs.capacity() {
        case .available: return
        case .full(let retryAfter):
            throw ServiceError(
                .tooManyRequests, "queue_full",
                "the queue is full (\(maxQueued) jobs waiting); retry later",
                headers: [("Retry-After", String(retryAfter))])
        case .shuttingDown:
            throw ServiceError(.serviceUnavailable, "shutting_down", "the server is shutting down")
        case .unavailable(let retryAfter):
            throw ServiceError(
                .serviceUnavailable, StoreError.Code.storeUnavailable.rawValue,
                "the job database cannot be reached; retry later", headers: [("Retry-After", String(retryAfter))])
        case .storageUnavailable(let retryAfter):
            throw ServiceError(
                .serviceUnavailable, MediaError.Code.storageUnavailable.rawValue,
                "the object store of this server does not answer; retry later",
                headers: [("Retry-After", String(retryAfter))])
        }
    }

    /// Stores job `id` with its received inputs (moved into the job), the input still `arriving` at `path`
    /// if any (moved too, and written on there), the URLs it fetches its inputs from and those it delivers
    /// its outputs to; the caller queues it. With `--objects`, the inputs and URLs are in the bucket first,
    /// so that any replica can run the job (an input still arriving is never one: it is kept to one server).
    func create(
        id: String, options: JobOptions, received: [String: UploadReceiver.Part], sourceName: String?,
        owner: String?, callbackURL: String?, urls: InputURLs = InputURLs(), targets: OutputURLs = OutputURLs(),
        arriving: (input: ArrivingInput, path: String)? = nil
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
        record.arrivingInputs = arriving.map { [$0.input] }
        let egress = EgressTargets(inputs: urls.targets, outputs: delivered.urls)
        if let objects = jobs.objects {
            try await store(in: objects, id: id, options.kind, received, egress)
        }
        // An input in the bucket alone (a tus upload's object, no path here) is staged by the replica that
        // runs the job.
        let (files, stored) = (inputs.filter { !$0.value.path.isEmpty }, record)
        let moving = arriving.map { (name: $0.input.name, path: $0.path) }
        do {
            try await threadPool.runIfActive { [store] in
                try store.create(stored, inputs: files, arriving: moving, egress: egress)
            }
        } catch {
            try? await jobs.objects?.removeJob(id)
            throw error
        }
        return record
    }

    /// Puts into the bucket what a replica that claims job `id` needs and does not have yet: the received
    /// inputs not put while they arrived (tus uploads, a raw mux body; a tus upload in the bucket already
    /// is copied there) and the job's URLs. A store that
    /// fails is a 503 `storage_unavailable`; what was put is removed then.
    private func store(
        in objects: JobObjects, id: String, _ kind: JobKind, _ received: [String: UploadReceiver.Part],
        _ egress: EgressTargets
    ) async throws {
        do {
            for part in kind.inputs {
                guard let upload = received[part.name], !upload.inBucket else { continue }
                if let key = upload.object {
                    try await objects.copyInput(from: key, job: id, name: part.storedName)
                } else {
                    try await objects.putInput(job: id, name: part.storedName, file: upload.file)
                }
            }
            if !egress.isEmpty { try await objects.putEgress(job: id, egress) }
        } catch let error as MediaError {
            await objects.discard(job: id)
            throw ServiceError(error)
        }
    }
}
