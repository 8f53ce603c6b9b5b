import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

extension MediaService {
    /// `POST /jobs/{id}/notifications`: delivers the job's end to its `callback_url` again — with the same
    /// `webhook-id`, so a receiver that has it already can tell — whether or not an earlier delivery
    /// succeeded; the attempts join the job's `notifications`. 202 with the job.
    func redeliverNotification(_ request: Request) async throws -> Response {
        let record = try await job(request)
        guard record.state.isTerminal else {
            throw ServiceError(
                .conflict, "not_ready",
                "job \(record.id) is \(record.state.rawValue); its end is delivered when it ends")
        }
        guard record.callbackURL != nil, configuration.webhooks.secret != nil else {
            throw ServiceError(
                .conflict, "no_callback", "job \(record.id) has no callback_url, or this server has no --webhook-secret"
            )
        }
        guard notifier.redeliver(record) else {
            throw ServiceError(.conflict, "delivery_in_progress", "a delivery of job \(record.id) is under way")
        }
        return .json(record, status: .accepted)
    }
}
