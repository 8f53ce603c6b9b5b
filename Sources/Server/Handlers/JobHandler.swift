import Foundation
import JobStore
import MediaCore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// The routes of jobs once made: `GET /jobs` (the list), `GET /jobs/{id}` (with `wait` to long-poll),
/// `DELETE /jobs/{id}` and `GET /jobs/{id}/log`.
struct JobHandler {
    let access: JobAccess
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool

    /// `GET /jobs/{id}`, with `wait` to long-poll until the job ends.
    func showJob(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        guard let wait = try request.waitSeconds(), !record.state.isTerminal else {
            return try access.answer(record, created: false)
        }
        return try await access.answer(record.id, wait: wait, created: false)
    }

    /// `GET /jobs?state=&kind=&limit=&cursor=`.
    func listJobs(_ request: Request) async throws -> Response {
        let query = try JobQuery(parameters: request.query)
        return .json(try JobPage.page(await jobs.allRecords().filter(request.maySee), query))
    }

    /// `DELETE /jobs/{id}`: cancels a queued or running job (200 with the job), deletes a finished one (204).
    func deleteJob(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        _ = try Preconditions(request.head.headers).evaluate(request.method, current: nil)
        guard let cancelled = try await jobs.cancelOrDelete(record.id) else { return Response(status: .noContent) }
        return .json(cancelled)
    }

    /// `GET /jobs/{id}/log`: the job's log as text (its last MiB if it is longer), from this replica's data
    /// directory, else (`--objects`, an ended job) from the bucket.
    func showLog(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        let path = store.logPath(id: record.id)
        let local = try await threadPool.runIfActive { () -> String? in
            guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            let size = (try? handle.seekToEnd()) ?? 0
            try? handle.seek(toOffset: size > 1 << 20 ? size - (1 << 20) : 0)
            return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        }
        if let local { return .text(local) }
        // Not here: with `--objects`, an ended job's log is in the bucket (another replica ran the job, or
        // this one lost its scratch directory).
        guard let objects = jobs.objects, record.state.isTerminal else { return .text("") }
        do {
            let bytes = try await objects.log(job: record.id, attempt: record.attempts, limit: 1 << 20) ?? []
            return .text(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ServiceError(
                .serviceUnavailable, MediaError.Code.storageUnavailable.rawValue,
                "the job's log is in the object store, which does not answer; retry later",
                headers: [("Retry-After", "5")])
        }
    }
}
