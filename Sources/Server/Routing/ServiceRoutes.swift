import JobStore
import MediaJobs
import MediadHTTP
import NIOHTTP1

/// Every route the service answers, by name. The router is built from this table and the test of
/// `openapi.yaml` compares the spec's paths with it, so the two cannot drift apart.
public enum ServiceRoute: String, CaseIterable, Sendable {
    case createJob, createJobByPut, listJobs, showJob, deleteJob, downloadOutput, downloadPrimaryOutput, showLog
    case probe, probeByPut, health, readiness, openAPI, metrics

    public var route: Route {
        switch self {
        case .createJob: Route(.POST, "/jobs/{kind}", values: Self.kind)
        // `curl -T file URL` uploads with PUT: the same as POST here.
        case .createJobByPut: Route(.PUT, "/jobs/{kind}", values: Self.kind)
        case .listJobs: Route(.GET, "/jobs")
        // `/jobs/{kind}` and `/jobs/{id}` have one shape: the values tell them apart for `Allow`.
        case .showJob: Route(.GET, "/jobs/{id}", values: Self.id)
        case .deleteJob: Route(.DELETE, "/jobs/{id}", values: Self.id)
        case .downloadOutput: Route(.GET, "/jobs/{id}/outputs/{name}")
        case .downloadPrimaryOutput: Route(.GET, "/jobs/{id}/output")
        case .showLog: Route(.GET, "/jobs/{id}/log")
        case .probe: Route(.POST, "/probe")
        case .probeByPut: Route(.PUT, "/probe")
        case .health: Route(.GET, "/healthz")
        case .readiness: Route(.GET, "/readyz")
        case .openAPI: Route(.GET, "/openapi.yaml")
        case .metrics: Route(.GET, "/metrics")
        }
    }

    /// `{kind}` takes the catalog's job kinds, `{id}` what has the shape of a job id.
    private static let kind: [String: @Sendable (String) -> Bool] = ["kind": Set(JobCatalog.names).contains]
    private static let id: [String: @Sendable (String) -> Bool] = ["id": JobStore.isValidID]

    /// The router over all routes, each handled by its name.
    public static var router: Router<ServiceRoute> {
        var router = Router<ServiceRoute>()
        for name in allCases { router.add(name.route, name) }
        return router
    }
}
