import Foundation
import JobStore
import MediaCore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// The HTTP API: the composition root that makes one handler per area, each holding only what it uses,
/// routes each request to its handler (`ServiceRoute`), checks its API token, and turns every failure into
/// a JSON error.
///
/// The areas: `SubmissionHandler` (making jobs), `JobHandler` (jobs once made), `NotificationHandler`,
/// `DownloadHandler` (outputs and their archive), `ResumableHandler` (tus uploads), `ProbeHandler`,
/// `EventHandler` (Server-Sent Events), `ConsoleAssets` (the web console) and `OperationsHandler` (index,
/// catalog, health, readiness, metrics, the OpenAPI document).
final class MediaService: Responder {
    let configuration: ServerConfiguration
    /// What `GET /jobs/{id}` answered at once reads: the job's snapshot and its encoded JSON.
    let access: JobAccess
    let submissions: SubmissionHandler
    let jobHandler: JobHandler
    let notifications: NotificationHandler
    let downloads: DownloadHandler
    let resumable: ResumableHandler
    let probes: ProbeHandler
    let events: EventHandler
    let operations: OperationsHandler
    private let router = ServiceRoute.router

    init(
        jobs: JobService, store: JobStore, threadPool: NIOThreadPool, configuration: ServerConfiguration,
        notifier: WebhookNotifier, streamLimits: EventStreamSlots.Limits, uploadRecords: any UploadRecords
    ) {
        self.configuration = configuration
        let access = JobAccess(jobs: jobs, encodedJobs: EncodedJobCache())
        let uploads = UploadReceiver(store: store, threadPool: threadPool, maxUpload: configuration.maxUpload)
        let diskSpace = DiskSpaceCheck(store: store, ledger: jobs.ledger, threadPool: threadPool)
        let intake = JobIntake(jobs: jobs, store: store, threadPool: threadPool, maxQueued: configuration.maxQueued)
        let prober = MediaProber(isolation: configuration.isolation)
        let resumable = ResumableHandler(
            configuration: configuration, jobs: jobs, intake: intake, diskSpace: diskSpace,
            records: uploadRecords, store: store, threadPool: threadPool)
        self.access = access
        self.resumable = resumable
        submissions = SubmissionHandler(
            configuration: configuration, jobs: jobs, access: access, intake: intake, uploads: uploads,
            resumable: resumable, prober: prober, diskSpace: diskSpace, store: store, threadPool: threadPool)
        jobHandler = JobHandler(access: access, jobs: jobs, store: store, threadPool: threadPool)
        notifications = NotificationHandler(
            access: access, notifier: notifier, signs: configuration.webhooks.secret != nil)
        downloads = DownloadHandler(access: access, store: store, threadPool: threadPool, configuration: configuration)
        probes = ProbeHandler(
            maxUpload: configuration.maxUpload, slots: ProbeSlots(limit: configuration.maxProbes), prober: prober,
            uploads: uploads, diskSpace: diskSpace, threadPool: threadPool)
        events = EventHandler(
            access: access, slots: EventStreamSlots(limits: streamLimits),
            heartbeat: .seconds(configuration.eventHeartbeat))
        operations = OperationsHandler(jobs: jobs, threadPool: threadPool, configuration: configuration)
    }

    /// Every answer without its own `Cache-Control` says `no-cache`: job JSON, lists, probes and errors
    /// change from one request to the next, so a cache must ask again before reusing one. Answers of the
    /// download routes (errors too, so a page can tell why) carry the CORS headers `--cors-origins` allows,
    /// and those of `/uploads` the headers every tus answer has.
    func respond(to request: Request) async -> Response {
        let match = router.match(request.method, path: request.path)
        var response = await route(request, match)
        if !response.headers.contains(name: "cache-control") {
            response.headers.add(name: "cache-control", value: "no-cache")
        }
        if case .found(let route, _) = match, route.sharesAcrossOrigins {
            for (name, value) in configuration.corsOrigins.headers(for: request) {
                response.headers.add(name: name, value: value)
            }
        }
        if case .found(let route, _) = match, route.isTus { TusProtocol.decorate(&response) }
        return response
    }

    private func route(_ request: Request, _ match: Router<ServiceRoute>.Match) async -> Response {
        if case .found(let route, _) = match { request.route = route.route.template }
        let isPublic = if case .found(let route, _) = match { route.isPublic } else { false }
        if let tokens = configuration.accessTokens, !isPublic {
            guard let caller = tokens.caller(authorization: request.head.headers.first(name: "authorization")) else {
                return .error(
                    ServiceError(
                        .unauthorized, "unauthorized", "send a valid API token as Authorization: Bearer <token>",
                        headers: [("WWW-Authenticate", "Bearer")]))
            }
            request.caller = caller
        }
        switch match {
        case .notFound:
            return .error(.notFound("no route for \(request.path)"))
        case .methodNotAllowed(let allowed):
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            return .error(
                ServiceError(
                    .methodNotAllowed, "method_not_allowed",
                    "\(request.method.rawValue) is not allowed here; allowed: \(names)",
                    headers: [("Allow", names)]))
        case .found(let route, let parameters):
            request.parameters = parameters
            do {
                let response = try await handle(route, request)
                guard !route.evaluatesPreconditions, (200..<300).contains(response.status.code) else { return response }
                // No entity tag here: `If-Match` with tags fails, `*` holds for a resource that `GET` answers.
                let outcome = try Preconditions(request.head.headers).evaluate(
                    request.method, current: nil, exists: route.route.method == .GET)
                return outcome == .notModified ? response.notModified : response
            } catch {
                return .error(ServiceError(describing: error))
            }
        }
    }

    /// The handler of each route.
    private func handle(_ route: ServiceRoute, _ request: Request) async throws -> Response {
        switch route {
        case .createJob, .createJobByPut, .createNamedJob: try await submissions.createJob(request)
        case .listJobs: try await jobHandler.listJobs(request)
        case .showJob: try await jobHandler.showJob(request)
        case .deleteJob: try await jobHandler.deleteJob(request)
        case .showLog: try await jobHandler.showLog(request)
        case .redeliverNotification: try await notifications.redeliverNotification(request)
        case .downloadOutput: try await downloads.download(request, name: try request.parameter("name"))
        case .downloadPrimaryOutput: try await downloads.download(request, name: nil)
        case .downloadOutputArchive: try await downloads.downloadArchive(request)
        case .outputPreflight, .primaryOutputPreflight, .outputArchivePreflight: downloads.preflight(request)
        case .jobEvents: try await events.jobEvents(request)
        case .events: try events.events(request)
        case .probe, .probeByPut: try await probes.probe(request)
        case .index: operations.index(request)
        case .catalog: operations.catalog()
        case .console: try ConsoleAssets.asset(try request.parameter("asset"))
        case .health: operations.health()
        case .readiness: try await operations.readiness()
        case .openAPI: try await operations.openAPI()
        case .metrics: await operations.metrics()
        case .uploadOptions: resumable.uploadOptions()
        case .createUpload: try await resumable.createUpload(request)
        case .showUpload: try await resumable.showUpload(request)
        case .patchUpload: try await resumable.patchUpload(request)
        case .deleteUpload: try await resumable.deleteUpload(request)
        }
    }
}
