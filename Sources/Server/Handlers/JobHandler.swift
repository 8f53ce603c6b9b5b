import Foundation
import JobStore
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

    /// `GET /jobs/{id}/log`: the job's log as text (its last MiB if it is longer).
    func showLog(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
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
