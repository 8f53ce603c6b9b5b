import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1

/// Finding the job a request names and answering with its JSON: what every handler of a job's routes
/// (the job itself, its outputs, its events, its notifications) needs, kept in one place so that they
/// all answer 404 and encode a record alike.
struct JobAccess {
    let jobs: JobService
    /// The encoded JSON of each job's current record, shared with `GET /jobs/{id}` answered at once.
    let encodedJobs: EncodedJobCache

    /// The job a request names, or 404 (ids are checked before any path is built from them; a job made
    /// with another API token is 404 too, unless the caller is an admin).
    func job(_ request: Request) async throws -> JobRecord {
        let id = try request.parameter("id")
        guard JobStore.isValidID(id) else { throw ServiceError.notFound("no job \(id)") }
        let found: JobRecord?
        if let snapshot = jobs.snapshot(id) { found = snapshot } else { found = await jobs.record(id) }
        guard let record = found, request.maySee(record) else { throw ServiceError.notFound("no job \(id)") }
        return record
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
}
