import MediaJobs

/// `GET /` for a client that asks for JSON rather than a page (`ConsoleAssets.wantsPage`): where a client
/// starts — the API description and the main routes, and the job kinds this server runs. It needs no token.
struct ServiceIndex: Encodable {
    let service = "mediad"
    let openapi = "/openapi.yaml"
    let jobs = "/jobs"
    /// `POST /jobs/{kind}` takes these.
    let kinds = JobCatalog.names
    /// Each kind's inputs and options.
    let catalog = "/catalog"
    /// Changes of the caller's jobs as Server-Sent Events.
    let events = "/events"
    let health = "/healthz"
    let readiness = "/readyz"
    let metrics = "/metrics"
    /// Whether the job routes need `Authorization: Bearer <token>` (`--auth-tokens`).
    let tokens: Bool
}
