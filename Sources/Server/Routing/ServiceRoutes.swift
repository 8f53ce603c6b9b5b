import JobStore
import MediaJobs
import MediadHTTP
import NIOHTTP1

/// Every route the service answers, by name. The router is built from this table and the test of
/// `openapi.yaml` compares the spec's paths with it, so the two cannot drift apart.
public enum ServiceRoute: String, CaseIterable, Sendable {
    case createJob, createJobByPut, createNamedJob, listJobs, showJob, deleteJob, redeliverNotification,
        downloadOutput, downloadPrimaryOutput, downloadOutputArchive, showLog, jobEvents, events
    case outputPreflight, primaryOutputPreflight, outputArchivePreflight
    case probe, probeByPut, index, catalog, console, health, readiness, openAPI, metrics
    case uploadOptions, createUpload, showUpload, patchUpload, deleteUpload

    public var route: Route {
        switch self {
        case .createJob: Route(.POST, "/jobs/{kind}", values: Self.kind)
        // `curl -T file URL` uploads with PUT: the same as POST here.
        case .createJobByPut: Route(.PUT, "/jobs/{kind}", values: Self.kind)
        // `curl -T talk.mp4 URL/` appends the file's name to a URL ending in `/`: it names the upload.
        case .createNamedJob: Route(.PUT, "/jobs/{kind}/{filename}", values: Self.kind)
        case .listJobs: Route(.GET, "/jobs")
        // `/jobs/{kind}` and `/jobs/{id}` have one shape: the values tell them apart for `Allow`.
        case .showJob: Route(.GET, "/jobs/{id}", values: Self.id)
        case .deleteJob: Route(.DELETE, "/jobs/{id}", values: Self.id)
        case .redeliverNotification: Route(.POST, "/jobs/{id}/notifications", values: Self.id)
        // An output name may be a path in folders (`720p/init.mp4`): `{name...}` takes the rest of the path.
        case .downloadOutput: Route(.GET, "/jobs/{id}/outputs/{name...}")
        case .downloadPrimaryOutput: Route(.GET, "/jobs/{id}/output")
        case .downloadOutputArchive: Route(.GET, "/jobs/{id}/outputs.tar")
        // CORS preflights of the download routes, for web players on other origins.
        case .outputPreflight: Route(.OPTIONS, "/jobs/{id}/outputs/{name...}")
        case .primaryOutputPreflight: Route(.OPTIONS, "/jobs/{id}/output")
        case .outputArchivePreflight: Route(.OPTIONS, "/jobs/{id}/outputs.tar")
        case .showLog: Route(.GET, "/jobs/{id}/log")
        case .jobEvents: Route(.GET, "/jobs/{id}/events")
        case .events: Route(.GET, "/events")
        case .probe: Route(.POST, "/probe")
        case .probeByPut: Route(.PUT, "/probe")
        case .index: Route(.GET, "/")
        case .catalog: Route(.GET, "/catalog")
        case .console: Route(.GET, "/console/{asset}")
        case .health: Route(.GET, "/healthz")
        case .readiness: Route(.GET, "/readyz")
        case .openAPI: Route(.GET, "/openapi.yaml")
        case .metrics: Route(.GET, "/metrics")
        // tus 1.0.0; `HEAD /uploads/{id}` (the offset) is answered by the `GET` route.
        case .uploadOptions: Route(.OPTIONS, "/uploads")
        case .createUpload: Route(.POST, "/uploads")
        case .showUpload: Route(.GET, "/uploads/{id}", values: Self.id)
        case .patchUpload: Route(.PATCH, "/uploads/{id}", values: Self.id)
        case .deleteUpload: Route(.DELETE, "/uploads/{id}", values: Self.id)
        }
    }

    /// Routes anyone may call when API tokens are on: the index (and the console page, which asks for a
    /// token itself), the console's files, the catalog of kinds, liveness and readiness, the CORS
    /// preflights and what the tus endpoint speaks (`OPTIONS /uploads`), which browsers send without
    /// credentials.
    var isPublic: Bool {
        switch self {
        case .index, .console, .catalog, .health, .readiness, .outputPreflight, .primaryOutputPreflight,
            .outputArchivePreflight, .uploadOptions:
            true
        default: false
        }
    }

    /// The routes that serve outputs, and their preflights: their answers carry CORS headers
    /// (`--cors-origins`), so a web player on another origin can read them.
    var sharesAcrossOrigins: Bool {
        switch self {
        case .downloadOutput, .downloadPrimaryOutput, .downloadOutputArchive, .outputPreflight,
            .primaryOutputPreflight, .outputArchivePreflight:
            true
        default: false
        }
    }

    /// Whether the handler evaluates the conditional fields itself: routes with entity tags (downloads) or
    /// whose method changes state (evaluated before the change). The others are evaluated on their 2xx answer.
    public var evaluatesPreconditions: Bool {
        switch self {
        case .createJob, .createJobByPut, .createNamedJob, .deleteJob, .downloadOutput, .downloadPrimaryOutput,
            .createUpload, .patchUpload, .deleteUpload:
            true
        default: false
        }
    }

    /// Whether the route is one of tus's, whose answers carry `Tus-Resumable`.
    var isTus: Bool {
        switch self {
        case .uploadOptions, .createUpload, .showUpload, .patchUpload, .deleteUpload: true
        default: false
        }
    }

    /// `{kind}` takes the catalog's job kinds, `{id}` what has the shape of a job (or upload) id.
    private static let kind: [String: @Sendable (String) -> Bool] = ["kind": Set(JobCatalog.names).contains]
    private static let id: [String: @Sendable (String) -> Bool] = ["id": JobStore.isValidID]

    /// Where `GET /jobs/{id}/outputs/{name}` serves an output: the `url` a job's record lists for it. Job
    /// ids and output names are URL-safe already (base64url; the names jobs give their files, with `/`
    /// between folders, which the route takes as they are).
    @Sendable static func outputURL(job id: String, name: String) -> String { "/jobs/\(id)/outputs/\(name)" }

    /// The router over all routes, each handled by its name.
    public static var router: Router<ServiceRoute> {
        var router = Router<ServiceRoute>()
        for name in allCases { router.add(name.route, name) }
        return router
    }
}
