import MediadHTTP
import NIOHTTP1

extension MediaService {
    /// `GET /events`: changes of every job the caller may see, as Server-Sent Events.
    func events(_ request: Request) -> Response {
        eventStream(following: nil, for: request)
    }

    /// `GET /jobs/{id}/events`: one job as it is, then its changes until it ends, as Server-Sent Events;
    /// 404 for a job the caller may not see, as its other routes.
    func jobEvents(_ request: Request) async throws -> Response {
        let record = try await job(request)
        return eventStream(following: record.id, for: request)
    }

    /// A `text/event-stream` response; `X-Accel-Buffering: no` asks nginx-like proxies not to hold events
    /// back, and `no-store` keeps caches from keeping a stream.
    private func eventStream(following jobID: String?, for request: Request) -> Response {
        let caller = request.caller
        let stream = JobEventStream(
            jobs: jobs, encodedJobs: encodedJobs, jobID: jobID, maySee: { Request.may(caller, see: $0) },
            resumingAfter: JobEventStream.resumeTime(from: request.head.headers.first(name: "last-event-id")))
        return Response(
            status: .ok,
            headers: [
                "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no",
            ],
            body: .stream(ResponseStream { await stream.run($0) }))
    }
}
