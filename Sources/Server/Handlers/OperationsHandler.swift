import Foundation
import JobStore
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

/// The routes about the server rather than a job: the index (the console's page for a browser), the
/// catalog of kinds, liveness and readiness, metrics and the OpenAPI document.
struct OperationsHandler {
    /// Whether the server takes jobs (readiness) and the queue's load (metrics).
    let jobs: JobService
    let threadPool: NIOThreadPool
    /// `--data-dir` (readiness), `--openapi` (the document) and whether `--auth-tokens` is set (the index).
    let configuration: ServerConfiguration

    /// `GET /`: the web console's page for a browser, else the `ServiceIndex` as JSON.
    func index(_ request: Request) -> Response {
        ConsoleAssets.wantsPage(request)
            ? ConsoleAssets.page : Response.json(ServiceIndex(tokens: configuration.accessTokens != nil)).varying
    }

    /// `GET /catalog`: every kind with its inputs and options.
    func catalog() -> Response { .json(KindCatalog()) }

    /// `GET /healthz`: alive while the server answers at all.
    func health() -> Response { .json(["status": "ok"]) }

    /// `GET /readyz`: ready while the store (and the replicas' database) is reachable and the server is not
    /// shutting down.
    func readiness() async throws -> Response {
        guard await jobs.isAccepting else {
            throw ServiceError(.serviceUnavailable, "shutting_down", "the server is shutting down")
        }
        guard await jobs.isReachable else {
            throw ServiceError(
                .serviceUnavailable, StoreError.Code.storeUnavailable.rawValue, "the job database cannot be reached")
        }
        let root = configuration.dataDirectory
        let writable = try await threadPool.runIfActive { access(root, W_OK) == 0 }
        guard writable else {
            throw ServiceError(.serviceUnavailable, "not_ready", "the data directory \(root) is not writable")
        }
        return .json(["status": "ready"])
    }

    /// `GET /metrics`: every metric in Prometheus text format, with the queue gauges sampled now.
    func metrics() async -> Response {
        let load = await jobs.load()
        ServiceMetrics.setLoad(queued: load.queued, running: load.running)
        return Response(
            status: .ok, headers: ["content-type": "text/plain; version=0.0.4; charset=utf-8"],
            body: .bytes(ByteBuffer(bytes: ServiceMetrics.exposition())))
    }

    /// `GET /openapi.yaml`: the spec this server implements.
    func openAPI() async throws -> Response {
        let path = configuration.openAPIPath ?? OpenAPIDocument.defaultPath
        guard let text = try await threadPool.runIfActive({ try? String(contentsOfFile: path, encoding: .utf8) }) else {
            throw ServiceError.notFound("openapi.yaml is not installed at \(path)")
        }
        return .text(text, contentType: "application/yaml")
    }
}
