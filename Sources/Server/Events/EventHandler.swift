import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// The Server-Sent Events routes, `GET /events` and `GET /jobs/{id}/events`, each a `JobEventStream`
/// holding one of the server's stream slots until it ends.
struct EventHandler {
    let access: JobAccess
    /// The event streams open, under `--max-streams` and `--max-streams-per-client`.
    let slots: EventStreamSlots
    /// `--event-heartbeat`.
    let heartbeat: Duration

    /// `GET /events`: changes of every job the caller may see, as Server-Sent Events.
    func events(_ request: Request) throws -> Response {
        try eventStream(following: nil, for: request)
    }

    /// `GET /jobs/{id}/events`: one job as it is, then its changes until it ends, as Server-Sent Events;
    /// 404 for a job the caller may not see, as its other routes.
    func jobEvents(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        return try eventStream(following: record.id, for: request)
    }

    /// A `text/event-stream` response holding one of the `slots` until it has been written, or 429
    /// `too_many_streams` when the caller's token or address, or the server, has as many as it may;
    /// `X-Accel-Buffering: no` asks nginx-like proxies not to hold events back, and `no-store` keeps
    /// caches from keeping a stream.
    private func eventStream(following jobID: String?, for request: Request) throws -> Response {
        let caller = request.caller
        let slot = try slots.take(token: caller?.name, address: request.clientAddress)
        let stream = JobEventStream(
            jobs: access.jobs, encodedJobs: access.encodedJobs, jobID: jobID, maySee: { Request.may(caller, see: $0) },
            resumingAfter: JobEventStream.resumeTime(from: request.head.headers.first(name: "last-event-id")),
            heartbeat: heartbeat)
        return Response(
            status: .ok,
            headers: [
                "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no",
            ],
            body: .stream(
                ResponseStream { writer in
                    await stream.run(writer)
                    withExtendedLifetime(slot) {}
                }))
    }
}
