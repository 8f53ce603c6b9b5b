import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// `Idempotency-Key` on job submission: a repeat gets the original job (200) instead of a second one.
///
/// The body has to be received before its SHA-256 is known, so the key is looked up twice: once the
/// upload is in (a plain repeat is answered at once and its upload dropped), and again, atomically, when
/// the new job is claimed for the key. Of two concurrent requests with one key, the one that loses that
/// claim deletes the job it just made (it was never queued) and answers with the winner's.
extension SubmissionHandler {
    /// The answer for a key already used, or nil when the key is free.
    func replay(_ key: IdempotencyKey, _ request: IdempotencyEntry, wait: Double?) async throws -> Response? {
        let found = try await threadPool.runIfActive { [store] in
            store.idempotencyEntry(key.digest, lifetime: IdempotencyKey.lifetime, now: Date())
        }
        guard let found else { return nil }
        return try await replayAnswer(found, request, wait: wait)
    }

    /// Claims the key for the job just created from `request`; nil when claimed. When another request
    /// claimed it first, the new job is deleted and the other's is answered.
    func claim(_ key: IdempotencyKey, _ request: IdempotencyEntry, wait: Double?) async throws -> Response? {
        let claim: JobStore.IdempotencyClaim
        do {
            claim = try await threadPool.runIfActive { [store] in
                try store.claimIdempotencyKey(
                    key.digest, request, lifetime: IdempotencyKey.lifetime, now: request.createdAt)
            }
        } catch {
            try? await threadPool.runIfActive { [store] in try store.delete(id: request.jobID) }
            throw error
        }
        guard case .taken(let existing) = claim else { return nil }
        try? await threadPool.runIfActive { [store] in try store.delete(id: request.jobID) }
        return try await replayAnswer(existing, request, wait: wait)
    }

    /// 200 with the original job (409 `idempotency_mismatch` when the request differs from the original).
    private func replayAnswer(_ original: IdempotencyEntry, _ request: IdempotencyEntry, wait: Double?)
        async throws -> Response
    {
        if let reason = original.mismatch(with: request) {
            throw ServiceError(.conflict, "idempotency_mismatch", reason + "; send a new key for a new job")
        }
        let id = original.jobID
        var response: Response
        if await jobs.record(id) != nil {
            response = try await access.answer(id, wait: wait, created: false)
        } else {
            // A job another replica made, not yet in this server's index.
            guard let record = try await threadPool.runIfActive({ [store] in try store.load(id: id) }) else {
                throw ServiceError.notFound("no job \(id)")
            }
            response = .json(record)
        }
        response.headers.add(name: "location", value: "/jobs/\(id)")
        response.headers.add(name: "idempotent-replayed", value: "true")
        return response
    }
}
