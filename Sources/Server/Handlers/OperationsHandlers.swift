import Foundation
import MediadHTTP
import MediadRuntime
import NIOCore
import NIOHTTP1
import NIOPosix

extension MediaService {
    /// `GET /readyz`: ready while the store is reachable and the server is not shutting down.
    func readiness() async throws -> Response {
        guard await jobs.isAccepting else {
            throw ServiceError(.serviceUnavailable, "shutting_down", "the server is shutting down")
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
