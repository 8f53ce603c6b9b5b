import Foundation
import JobStore
import MediaCore
import NIOHTTP1
import NIOPosix

/// The HTTP API: routes each request to its handler and turns every failure into a JSON error.
final class MediaService: Responder {
    let jobs: JobService
    let store: JobStore
    let threadPool: NIOThreadPool
    let configuration: ServerConfiguration
    let uploads: UploadReceiver
    private let router = ServiceRoute.router

    init(jobs: JobService, store: JobStore, threadPool: NIOThreadPool, configuration: ServerConfiguration) {
        self.jobs = jobs
        self.store = store
        self.threadPool = threadPool
        self.configuration = configuration
        uploads = UploadReceiver(store: store, threadPool: threadPool, maxUpload: configuration.maxUpload)
    }

    func respond(to request: Request) async -> Response {
        switch router.match(request.method, path: request.path) {
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
                return try await handle(route, request)
            } catch let error as ServiceError {
                return .error(error)
            } catch let error as MediaError {
                return .error(ServiceError(error))
            } catch let error as StoreError {
                return .error(ServiceError(.internalServerError, error.code, error.message))
            } catch {
                return .error(ServiceError(.internalServerError, "internal_error", "\(error)"))
            }
        }
    }

    private func handle(_ route: ServiceRoute, _ request: Request) async throws -> Response {
        switch route {
        case .createJob, .createJobByPut: try await createJob(request)
        case .listJobs: try await listJobs(request)
        case .showJob: try await showJob(request)
        case .deleteJob: try await deleteJob(request)
        case .downloadOutput: try await download(request, name: try request.parameter("name"))
        case .downloadPrimaryOutput: try await download(request, name: nil)
        case .showLog: try await showLog(request)
        case .probe, .probeByPut: try await probe(request)
        case .health: .json(["status": "ok"])
        case .readiness: try await readiness()
        case .openAPI: try await openAPI()
        }
    }

    /// The job a request names, or 404 (ids are checked before any path is built from them).
    func job(_ request: Request) async throws -> JobRecord {
        let id = try request.parameter("id")
        guard JobStore.isValidID(id), let record = await jobs.record(id) else {
            throw ServiceError.notFound("no job \(id)")
        }
        return record
    }
}

extension Request {
    func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw ServiceError.invalidRequest("missing path parameter \(name)") }
        return value
    }
}
