import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

extension MediaService {
    /// The fields of a job's JSON answered at once: those `showJob` and `respond(to:)` give it.
    private static let jobFields: HTTPHeaders = ["content-type": "application/json", "cache-control": "no-cache"]
    private static let jobsPrefix = "/jobs/"
    private static let jobRoute = ServiceRoute.showJob.route.template

    /// `GET /jobs/{id}` answered on the event loop when its JSON is in memory already: the job's current
    /// record (`JobService.snapshot`) and the body encoded from it (`EncodedJobCache`), the answer of a job
    /// polled for its state. Only without API tokens (with them the caller's token decides), for a target
    /// that is exactly `/jobs/` and a job id (no query: `wait` long-polls); anything else, or a record not
    /// yet encoded, goes the usual way through `respond(to:)`, which answers the same.
    func immediateResponse(to head: HTTPRequestHead) -> (response: Response, route: String)? {
        guard configuration.accessTokens == nil, head.uri.hasPrefix(Self.jobsPrefix) else { return nil }
        let id = String(head.uri.dropFirst(Self.jobsPrefix.count))
        guard JobStore.isValidID(id), let record = access.jobs.snapshot(id),
            let body = access.encodedJobs.cachedBody(for: record)
        else { return nil }
        return (Response(status: .ok, headers: Self.jobFields, body: .bytes(body)), Self.jobRoute)
    }
}
