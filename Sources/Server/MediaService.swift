import Foundation
import JobStore
import MediaCore
import MediadHTTP
import MediadRuntime
import NIOHTTP1
import NIOPosix

/// The HTTP API: routes each request to its handler and turns every failure into a JSON error.
final class MediaService: Responder {
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool
    let configuration: ServerConfiguration
    let uploads: UploadReceiver
    let encodedJobs = EncodedJobCache()
    let probeSlots: ProbeSlots
    /// The event streams open, under `--max-streams` and `--max-streams-per-client`.
    let streamSlots: EventStreamSlots
    /// Delivers job ends to their `callback_url`s, and again on request.
    let notifier: WebhookNotifier
    private let router = ServiceRoute.router

    init(
        jobs: JobService, store: JobStore, threadPool: NIOThreadPool, configuration: ServerConfiguration,
        notifier: WebhookNotifier, streamLimits: EventStreamSlots.Limits
    ) {
        self.jobs = jobs
        self.notifier = notifier
        self.store = store
        self.threadPool = threadPool
        self.configuration = configuration
        probeSlots = ProbeSlots(limit: configuration.maxProbes)
        streamSlots = EventStreamSlots(limits: streamLimits)
        uploads = UploadReceiver(store: store, threadPool: threadPool, maxUpload: configuration.maxUpload)
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
            } catch let error as ServiceError {
                return .error(error)
            } catch let error as MediaError {
                return .error(ServiceError(error))
            } catch let error as StoreError {
                return .error(ServiceError(error))
            } catch {
                return .error(ServiceError(.internalServerError, "internal_error", "\(error)"))
            }
        }
    }

    private func handle(_ route: ServiceRoute, _ request: Request) async throws -> Response {
        switch route {
        case .createJob, .createJobByPut, .createNamedJob: try await createJob(request)
        case .listJobs: try await listJobs(request)
        case .showJob: try await showJob(request)
        case .deleteJob: try await deleteJob(request)
        case .redeliverNotification: try await redeliverNotification(request)
        case .downloadOutput: try await download(request, name: try request.parameter("name"))
        case .downloadPrimaryOutput: try await download(request, name: nil)
        case .downloadOutputArchive: try await downloadArchive(request)
        case .outputPreflight, .primaryOutputPreflight, .outputArchivePreflight:
            configuration.corsOrigins.preflight(request)
        case .showLog: try await showLog(request)
        case .jobEvents: try await jobEvents(request)
        case .events: try events(request)
        case .probe, .probeByPut: try await probe(request)
        case .index:
            ConsoleAssets.wantsPage(request)
                ? ConsoleAssets.page : Response.json(ServiceIndex(tokens: configuration.accessTokens != nil)).varying
        case .catalog: .json(KindCatalog())
        case .console: try ConsoleAssets.asset(try request.parameter("asset"))
        case .health: .json(["status": "ok"])
        case .readiness: try await readiness()
        case .openAPI: try await openAPI()
        case .metrics: await metrics()
        case .uploadOptions: uploadOptions()
        case .createUpload: try await createUpload(request)
        case .showUpload: try await showUpload(request)
        case .patchUpload: try await patchUpload(request)
        case .deleteUpload: try await deleteUpload(request)
        }
    }

    /// 507 `insufficient_storage` when the body would take the store's disk below `--min-free-disk`,
    /// decided from the head (and `Content-Length`, when sent) before a byte of the body is read. The room
    /// promised to unfinished resumable uploads counts as taken, but for a chunk of the upload `besides`
    /// names, which is its own.
    func checkDiskSpace(_ request: Request, besides upload: String? = nil) async throws {
        let length = request.contentLength ?? 0
        let watermark = store.watermark
        let reserved = jobs.ledger.reservedUploadBytes(besides: upload)
        do {
            try await threadPool.runIfActive { try watermark.check(adding: length, reserved: reserved) }
        } catch let error as StoreError {
            throw ServiceError(error)
        }
    }

    /// The job a request names, or 404 (ids are checked before any path is built from them; a job made
    /// with another API token is 404 too, unless the caller is an admin).
    func job(_ request: Request) async throws -> JobRecord {
        let id = try request.parameter("id")
        guard JobStore.isValidID(id) else { throw ServiceError.notFound("no job \(id)") }
        let found: JobRecord?
        if let snapshot = jobs.snapshot(id) { found = snapshot } else { found = await jobs.record(id) }
        guard let record = found, request.maySee(record) else { throw ServiceError.notFound("no job \(id)") }
        return record
    }
}

extension Request {
    /// Whether the caller may see `record`: anyone without tokens; with tokens, its owner or an admin.
    /// Another token's job is answered as if it did not exist.
    func maySee(_ record: JobRecord) -> Bool { Self.may(caller, see: record) }

    /// `maySee` for a caller kept apart from its request (an event stream outlives the request's handler).
    static func may(_ caller: RequestCaller?, see record: JobRecord) -> Bool {
        guard let caller else { return true }
        return caller.isAdmin || record.owner == caller.name
    }

    func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw ServiceError.invalidRequest("missing path parameter \(name)") }
        return value
    }
}
