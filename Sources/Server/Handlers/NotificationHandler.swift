import JobStore
import MediadHTTP
import MediadRuntime
import NIOHTTP1

/// `POST /jobs/{id}/notifications`: a job's end delivered again to its `callback_url`.
struct NotificationHandler {
    let access: JobAccess
    /// Delivers job ends to their `callback_url`s, and again on request.
    let notifier: WebhookNotifier
    /// Whether `--webhook-secret` is set: without it no job end is delivered.
    let signs: Bool

    /// `POST /jobs/{id}/notifications`: delivers the job's end to its `callback_url` again — with the same
    /// `webhook-id`, so a receiver that has it already can tell — whether or not an earlier delivery
    /// succeeded; the attempts join the job's `notifications`. 202 with the job.
    func redeliverNotification(_ request: Request) async throws -> Response {
        let record = try await access.job(request)
        guard record.state.isTerminal else {
            throw ServiceError(
                .conflict, "not_ready",
                "job \(record.id) is \(record.state.rawValue); its end is delivered when it ends")
        }
        guard record.callbackURL != nil, signs else {
            throw ServiceError(
                .conflict, "no_callback", "job \(record.id) has no callback_url, or this server has no --webhook-secret"
            )
        }
        guard try await notifier.redeliver(record) else {
            throw ServiceError(.conflict, "delivery_in_progress", "a delivery of job \(record.id) is under way")
        }
        return .json(record, status: .accepted)
    }
}
