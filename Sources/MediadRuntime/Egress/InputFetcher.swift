import Foundation
import JobStore
import MediaCore
import MediadClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// Fetches an input from its URL into an upload file of the store, hashed as it arrives, like a request
/// body: GET through the egress policy (each host resolved once and connected to by address, every
/// redirect checked again, at most `maxRedirects`), the body capped at `maxSize` and held to
/// `minimumRate` as an upload is, with the policy's connect and idle timeouts, all before a deadline.
/// Failures are `MediaError`s with the input codes (`input_refused`, `input_unreachable`,
/// `input_http_error`, `input_too_large`, `input_too_slow`, `input_timeout`) and the last HTTP status seen;
/// a failed fetch leaves no file behind.
package struct InputFetcher: Sendable {
    /// Why a fetch failed, and the status of the last response when one came.
    package struct Failure: Error {
        package var error: MediaError
        package var status: Int?
    }

    /// A fetched input: the upload holding it and the status that delivered it.
    package struct Fetched: Sendable {
        package var upload: UploadedFile
        package var status: Int
    }

    let policy: EgressPolicy
    let client: HTTPClient
    let store: JobStore
    let threadPool: NIOThreadPool
    let maxSize: Int64
    /// Bytes a second a body must average over each 10 s spent waiting on the peer (`--min-upload-rate`);
    /// 0: no minimum.
    let minimumRate: Int64
    /// How long fetching all of a job's URL inputs may take: `--input-timeout`, never more than the
    /// longest time limit of a job (`--job-timeout-ceiling`).
    package let timeLimit: TimeInterval

    package init(
        policy: EgressPolicy, store: JobStore, threadPool: NIOThreadPool, maxSize: Int64, minimumRate: Int64,
        timeCeiling: TimeInterval
    ) throws {
        self.policy = policy
        self.store = store
        self.threadPool = threadPool
        self.maxSize = maxSize
        self.minimumRate = minimumRate
        timeLimit = min(policy.inputTimeout, timeCeiling)
        client = try HTTPClient(threadPool: threadPool, tls: policy.tls)
    }

    /// The moment the URL inputs of a job whose fetch starts now must all have arrived by.
    package func deadline() -> NIODeadline {
        .now() + .nanoseconds(Int64(min(timeLimit, Double(Int64.max / 1_000_000_000 - 1)) * 1e9))
    }

    /// Fetches `text`, following redirects, before `deadline`.
    package func fetch(_ text: String, before deadline: NIODeadline) async throws -> Fetched {
        var url: HTTPURL
        do {
            url = try HTTPURL(text)
        } catch {
            throw Failure(error: MediaError(.inputRefused, "\(error)"), status: nil)
        }
        var redirects = 0
        var redirectStatus: Int? = nil
        while true {
            let (response, body): (FetchResponse, UploadedFile?)
            do {
                (response, body) = try await get(url, before: deadline)
            } catch var failure as Failure {
                // A target refused before any answer came still shows the redirect that led there.
                failure.status = failure.status ?? redirectStatus
                throw failure
            }
            if let location = response.location {
                guard redirects < policy.maxRedirects else {
                    throw Failure(
                        error: MediaError(
                            .inputRefused, "\(url.redacted) redirects more than \(policy.maxRedirects) times"),
                        status: response.status)
                }
                redirects += 1
                redirectStatus = response.status
                do {
                    url = try RedirectTarget.resolve(location, against: url)
                } catch {
                    throw Failure(
                        error: MediaError(.inputRefused, "\(url.redacted) redirects to a bad URL: \(error)"),
                        status: response.status)
                }
                continue
            }
            guard let body else {
                throw Failure(
                    error: MediaError(.inputHTTPError, "\(url.redacted) answered \(response.status)"),
                    status: response.status)
            }
            return Fetched(upload: body, status: response.status)
        }
    }

    /// One GET: the response, and the body as an upload for a 2xx (nothing is kept for other statuses).
    private func get(_ url: HTTPURL, before deadline: NIODeadline) async throws -> (FetchResponse, UploadedFile?) {
        try checkTime(deadline, url)
        let address: SocketAddress
        do {
            address = try await threadPool.runIfActive { [policy] in try policy.resolve(url) }
        } catch let refusal as EgressRefusal {
            throw Failure(error: MediaError(.inputRefused, refusal.message), status: nil)
        } catch {
            throw Failure(error: MediaError(.inputUnreachable, "\(error)"), status: nil)
        }
        try checkTime(deadline, url)
        let upload = try await threadPool.runIfActive { [store] in try store.makeUpload() }
        let head = FetchHead(maxSize: maxSize)
        let body = FetchBody(
            upload: upload, threadPool: threadPool, head: head, maxSize: maxSize, minimumRate: minimumRate)
        let remaining = deadline - .now()
        do {
            let response = try await client.send(
                .GET, url, address: address, headers: [("Accept", "*/*")], timeout: remaining,
                connectTimeout: min(policy.connectTimeoutAmount, remaining), idleTimeout: policy.idleTimeoutAmount,
                onHead: {
                    try head.accept($0, $1)
                    body.begin()
                },
                sink: { chunk in if head.isSuccess { try await body.append(chunk) } })
            let status = FetchResponse(response.status, response.headers)
            guard head.isSuccess else {
                try? await threadPool.runIfActive { upload.discard() }
                return (status, nil)
            }
            return (status, try await body.finish())
        } catch {
            try? await threadPool.runIfActive { upload.discard() }
            if let refusal = head.refusal { throw Failure(error: refusal, status: head.status) }
            if NIODeadline.now() >= deadline { throw Failure(error: timedOut(url), status: head.status) }
            throw Failure(error: MediaError(.inputUnreachable, "\(url.redacted): \(error)"), status: head.status)
        }
    }

    /// Throws `input_timeout` once `deadline` has passed.
    private func checkTime(_ deadline: NIODeadline, _ url: HTTPURL) throws {
        guard NIODeadline.now() < deadline else { throw Failure(error: timedOut(url), status: nil) }
    }

    private func timedOut(_ url: HTTPURL) -> MediaError {
        MediaError(
            .inputTimeout,
            "\(url.redacted) was not fetched within the \(String(format: "%g", timeLimit)) s a job's URL inputs may take "
                + "(--input-timeout)")
    }
}

/// What `InputFetcher` reads from a response head: the status, and where a redirect points.
private struct FetchResponse {
    var status: Int
    /// The `Location` of a 301, 302, 303, 307 or 308.
    var location: String?

    init(_ status: Int, _ headers: HTTPHeaders) {
        self.status = status
        location = [301, 302, 303, 307, 308].contains(status) ? headers.first(name: "location") : nil
    }
}
