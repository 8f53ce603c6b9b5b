import Foundation
import Logging
import MediadClient
import NIOCore
import NIOHTTP1
import Synchronization

extension S3Client {
    /// One request to the store before signing: the key is already joined with the prefix.
    struct Request: Sendable {
        var method: HTTPMethod
        /// The full key, or nil for the bucket itself.
        var key: String?
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var body: HTTPClient.Body = .empty
        /// The body's SHA-256 in hex, or `UNSIGNED-PAYLOAD`.
        var payloadHash: String = SigV4Signer.unsignedPayload
        /// What the request does, for messages (`PUT a.mp4`).
        var operation: String
    }

    /// A response the store accepted: its status and headers, and its body unless it went to a sink.
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        /// How many times the request was sent: more than 1 when an attempt failed on the way.
        var attempts = 1

        /// The `ETag` of a CopyObject or CompleteMultipartUpload answer, whose 200 may still carry an S3
        /// error document (the store failed after it began answering): that error, thrown as an `S3Error`.
        func eTagOfAnswer(_ operation: String) throws -> String {
            let answer = try? S3XML.parse(body)
            if answer?.name == "Error" { throw S3Error.response(status: status, body: body, operation: operation) }
            guard let etag = answer?.text(of: "ETag") else {
                throw S3Error(code: "InvalidResponse", status: status, message: "\(operation): no ETag in the answer")
            }
            return etag
        }
    }

    /// Sends `request`, signed afresh for each attempt, retrying as `retry` says (a failure worth retrying,
    /// within the request's retry window). A 2xx status (or one of `accepting`) returns the response, its
    /// body collected up to `maxBody` bytes or streamed to `sink`; any other status is an `S3Error` read from
    /// S3's error document. The outcome goes to `reachability`; the first retry of a request and its end
    /// after retries go to `logger`.
    func send(
        _ request: Request, accepting: Set<Int> = [], maxBody: Int = 1 << 20,
        sink: (@Sendable (ByteBuffer) async throws -> Void)? = nil
    ) async throws -> Reply {
        let start = ContinuousClock.now
        var attempt = 0
        while true {
            attempt += 1
            let gate = ResponseGate(maxBody: maxBody, accepting: accepting, sink: sink)
            let wait: Duration
            do {
                var reply = try await sendOnce(request, gate: gate)
                reachability.answered()
                reply.attempts = attempt
                if attempt > 1 {
                    logger?.info("\(request.operation): the object store took it after \(attempt) attempts")
                }
                return reply
            } catch var error as S3Error {
                error.attempts = attempt
                guard error.isRetryable, !gate.delivered,
                    let next = retry.wait(afterAttempt: attempt, elapsed: ContinuousClock.now - start)
                else {
                    if error.isRetryable { reachability.gaveUp() } else { reachability.answered() }
                    throw error
                }
                if attempt == 1 {
                    logger?.warning("\(error); retrying for up to \(Self.seconds(retry.window))")
                }
                wait = next
            }
            try await Task.sleep(for: wait)
        }
    }

    /// A duration for people: `30s`, `1.5s`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = S3RetryPolicy.nanoseconds(duration) / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(Double(milliseconds) / 1000)s"
    }

    private func sendOnce(_ request: Request, gate: ResponseGate) async throws -> Reply {
        let host = location.host
        let path = location.path(fullKey: request.key)
        var headers = request.headers + [("x-amz-content-sha256", request.payloadHash)]
        let signable = SignableRequest(
            method: request.method.rawValue, path: path, query: request.query,
            headers: headers + [("Host", host.hostHeader)], payloadHash: request.payloadHash)
        headers += signer.authorizationHeaders(for: signable, at: Date())
        let query = request.query.isEmpty ? "" : "?" + CanonicalRequest.canonicalQuery(request.query)
        let url = host.with(target: CanonicalRequest.encodedPath(path) + query)
        let response: HTTPClient.Response
        do {
            response = try await http.send(
                request.method, url, headers: headers.map { ($0.name, $0.value) }, body: request.body, timeout: nil,
                idleTimeout: idleTimeout, onHead: { status, _ in gate.head(status) }, sink: { try await gate.take($0) })
        } catch {
            if let thrown = gate.thrown { throw thrown }
            throw S3Error(code: "ConnectionFailed", status: nil, message: "\(request.operation): \(error)")
        }
        if let thrown = gate.thrown { throw thrown }
        guard gate.accepts(response.status) else {
            throw S3Error.response(status: response.status, body: gate.body, operation: request.operation)
        }
        return Reply(status: response.status, headers: response.headers, body: gate.body)
    }
}

/// Where one attempt's response body goes: to the caller's sink once the status is a success, else
/// collected (bounded) for the result or the error document. It remembers whether the sink saw a byte,
/// after which the attempt cannot be repeated, and the error that stopped the exchange.
private final class ResponseGate: Sendable {
    private struct State {
        var status = 0
        var body: [UInt8] = []
        var delivered = false
        var thrown: (any Error)?
    }

    private let state = Mutex(State())
    private let maxBody: Int
    private let accepting: Set<Int>
    private let sink: (@Sendable (ByteBuffer) async throws -> Void)?

    init(maxBody: Int, accepting: Set<Int>, sink: (@Sendable (ByteBuffer) async throws -> Void)?) {
        self.maxBody = maxBody
        self.accepting = accepting
        self.sink = sink
    }

    func accepts(_ status: Int) -> Bool { (200..<300).contains(status) || accepting.contains(status) }

    func head(_ status: Int) { state.withLock { $0.status = status } }

    var body: [UInt8] { state.withLock { $0.body } }
    var delivered: Bool { state.withLock { $0.delivered } }
    var thrown: (any Error)? { state.withLock { $0.thrown } }

    /// One chunk of the body. An error document is kept to its first 64 KiB; a success's body over `maxBody`
    /// stops the exchange with `ResponseTooLarge`.
    func take(_ chunk: ByteBuffer) async throws {
        let success = accepts(state.withLock { $0.status })
        if success, let sink {
            state.withLock { $0.delivered = true }
            do { try await sink(chunk) } catch {
                state.withLock { $0.thrown = error }
                throw error
            }
            return
        }
        let limit = success ? maxBody : 64 << 10
        let over = state.withLock { state in
            guard state.body.count + chunk.readableBytes <= limit else { return true }
            state.body += chunk.readableBytesView
            return false
        }
        guard over, success else { return }
        let error = S3Error(
            code: "ResponseTooLarge", status: state.withLock { $0.status },
            message: "the response body is over \(maxBody) bytes")
        state.withLock { $0.thrown = error }
        throw error
    }
}
