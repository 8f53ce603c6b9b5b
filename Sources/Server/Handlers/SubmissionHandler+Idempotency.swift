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
/// the new job is queued under the key (`JobService.enqueue(_:claiming:as:lifetime:)`). Of two concurrent
/// requests with one key, on one server or on replicas, the one that loses that claim has the job it just
/// made deleted (it was never queued) and answers with the winner's. The keys live where
/// `JobService.idempotencyKeys` keeps them: the data directory, or the replicas' database.
extension SubmissionHandler {
    /// The answer for a key already used, or nil when the key is free.
    func replay(_ key: IdempotencyKey, _ request: IdempotencyEntry, wait: Double?) async throws -> Response? {
        guard let found = try await jobs.idempotencyKeys.entry(key.digest, lifetime: IdempotencyKey.lifetime) else {
            return nil
        }
        return try await replayAnswer(found, request, wait: wait)
    }

    /// Queues `record`, the job just created from `request`, under the key; nil when it is queued. When
    /// another request claimed the key first, the new job is deleted and the other's is answered.
    func enqueue(_ record: JobRecord, claiming key: IdempotencyKey, _ request: IdempotencyEntry, wait: Double?)
        async throws -> Response?
    {
        guard
            let existing = try await jobs.enqueue(
                record, claiming: key.digest, as: request, lifetime: IdempotencyKey.lifetime)
        else { return nil }
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
