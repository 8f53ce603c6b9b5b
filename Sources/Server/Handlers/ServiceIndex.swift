import MediaJobs

/// `GET /`: where a person or a client starts — the API description and the main routes, and the job kinds
/// this server runs. It needs no token.
struct ServiceIndex: Encodable {
    let service = "mediad"
    let openapi = "/openapi.yaml"
    let jobs = "/jobs"
    /// `POST /jobs/{kind}` takes these.
    let kinds = JobCatalog.names
    let health = "/healthz"
    let readiness = "/readyz"
    let metrics = "/metrics"
}
