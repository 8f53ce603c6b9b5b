import Foundation
import MediadFoundation
import NIOCore
import NIOHTTP1

/// The job API from the client's side, as `mediad submit` uses it: submit a file, long-poll the job,
/// download its outputs. Every failure is a `JobClient.Failure` with the server's error code when it sent
/// one (`connection_failed`, `invalid_response`, `download_corrupt` or `http_<status>` otherwise).
public struct JobClient: Sendable {
    /// What the client needs of a job's JSON.
    public struct Job: Sendable {
        public struct Output: Sendable {
            public var name: String
            public var url: String
            public var size: Int64?
            public var sha256: String?
        }

        public var id: String
        public var state: String
        public var progress: Double
        /// `error.code` and `error.message` of a failed or cancelled job.
        public var error: Failure?
        public var outputs: [Output]
        /// What the job changed or dropped without failing (e.g. rotation a container cannot store).
        public var warnings: [String]

        public var isFinished: Bool { ["succeeded", "failed", "cancelled"].contains(state) }
    }

    /// Printed by `mediad submit` as `error: <code>: <message>`.
    public struct Failure: Error, Sendable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    let server: HTTPURL
    private let token: String?
    let client: HTTPClient

    /// `server` is the service's base URL (a path prefix is kept); `token` is sent as a bearer token; `tls`
    /// is how an `https` server is verified.
    public init(server: HTTPURL, token: String?, tls: ClientTLS) throws {
        self.server = server
        self.token = token
        client = try HTTPClient(tls: tls)
    }

    /// Uploads `file` (streamed from disk) as a new `kind` job with `options` as query parameters. The file's
    /// name follows the kind in the path (`PUT /jobs/remux/talk.mp4`, as `curl -T talk.mp4 …/jobs/remux/`
    /// sends it), so the server names the downloads after it.
    public func submit(kind: String, file: String, options: [(String, String)], idempotencyKey: String?)
        async throws -> Job
    {
        let query = options.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(
            separator: "&")
        var headers = [("Content-Type", "application/octet-stream")]
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        let name = URL(fileURLWithPath: file).lastPathComponent
        let path = "/jobs/\(PercentEncoding.encode(kind))/\(PercentEncoding.encode(name))"
        return try Self.job(
            try await send(
                .PUT, path + (query.isEmpty ? "" : "?" + query), headers: headers, body: .file(file), timeout: nil))
    }

    /// The job, after waiting up to `seconds` for it to end.
    public func poll(_ id: String, seconds: Int) async throws -> Job {
        try Self.job(
            try await send(
                .GET, "/jobs/\(PercentEncoding.encode(id))?wait=\(seconds)", timeout: .seconds(Int64(seconds) + 30)))
    }

    /// Downloads an output into `path` and checks it against the size and SHA-256 the job lists. The file
    /// reaches `path` only once it matches; a download that does not is tried once more, and then nothing
    /// is left behind but the `download_corrupt` error.
    public func download(_ output: Job.Output, to path: String) async throws {
        let destination = URL(fileURLWithPath: path)
        let unverified = destination.deletingLastPathComponent().appendingPathComponent(
            "." + destination.lastPathComponent + ".unverified"
        ).path
        for attempt in 1...2 {
            let result: HTTPClient.Download
            do {
                result = try await client.download(
                    server.with(target: base + output.url), headers: authorization, to: unverified)
            } catch {
                throw Failure(code: "connection_failed", message: "\(error)")
            }
            guard (200..<300).contains(result.status) else { throw Self.failure(result.status, result.errorBody) }
            let matches =
                output.sha256.map { $0 == result.sha256 } ?? true && output.size.map { $0 == result.size } ?? true
            if matches {
                guard rename(unverified, path) == 0 else {
                    unlink(unverified)
                    throw Failure(
                        code: "io_error", message: "cannot rename into \(path): \(String(cString: strerror(errno)))")
                }
                return
            }
            unlink(unverified)
            if attempt == 2 { break }
        }
        throw Failure(
            code: "download_corrupt",
            message: "\(path) did not match the size and SHA-256 the server listed, twice; nothing was kept")
    }

    var base: String {
        var path = server.target
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    var authorization: [(String, String)] { token.map { [("Authorization", "Bearer \($0)")] } ?? [] }

    func send(
        _ method: HTTPMethod, _ target: String, headers: [(String, String)] = [], body: HTTPClient.Body = .empty,
        timeout: TimeAmount?
    ) async throws -> HTTPClient.Response {
        do {
            return try await client.send(
                method, server.with(target: base + target), headers: authorization + headers, body: body,
                timeout: timeout)
        } catch {
            throw Failure(code: "connection_failed", message: "\(error)")
        }
    }

    /// A 2xx body read as a job, or the failure the server reported.
    static func job(_ response: HTTPClient.Response) throws -> Job {
        guard (200..<300).contains(response.status) else { throw failure(response.status, response.body) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let id = object["id"] as? String, let state = object["state"] as? String
        else { throw Failure(code: "invalid_response", message: "the server's answer is not a job") }
        let error = (object["error"] as? [String: Any]).map {
            Failure(code: $0["code"] as? String ?? "unknown", message: $0["message"] as? String ?? "")
        }
        let outputs = (object["outputs"] as? [[String: Any]] ?? []).compactMap { item -> Job.Output? in
            guard let name = item["name"] as? String, let url = item["url"] as? String else { return nil }
            return Job.Output(
                name: name, url: url, size: (item["size"] as? NSNumber)?.int64Value, sha256: item["sha256"] as? String)
        }
        return Job(
            id: id, state: state, progress: (object["progress"] as? NSNumber)?.doubleValue ?? 0, error: error,
            outputs: outputs, warnings: object["warnings"] as? [String] ?? [])
    }

    /// `{"error":{"code","message"}}` from the body, or the bare status when the body is not that.
    static func failure(_ status: Int, _ body: [UInt8]) -> Failure {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let error = object["error"] as? [String: Any], let code = error["code"] as? String
        {
            return Failure(code: code, message: "\(error["message"] as? String ?? "") (HTTP \(status))")
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Failure(code: "http_\(status)", message: text.isEmpty ? "HTTP \(status)" : text)
    }
}
