import Foundation
import JobStore
import MediaCore
import MediadClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// Fetches an input from its URL into an upload file of the store, hashed as it arrives, like a request
/// body: GET through the egress policy (each host resolved once and connected to by address, every
/// redirect checked again, at most `maxRedirects`), the body capped at `maxSize`, with the policy's
/// connect and idle timeouts. Failures are `MediaError`s with the input codes (`input_refused`,
/// `input_unreachable`, `input_http_error`, `input_too_large`) and the last HTTP status seen.
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

    package init(policy: EgressPolicy, store: JobStore, threadPool: NIOThreadPool, maxSize: Int64) throws {
        self.policy = policy
        self.store = store
        self.threadPool = threadPool
        self.maxSize = maxSize
        client = try HTTPClient(threadPool: threadPool, tls: policy.tls)
    }

    /// Fetches `text`, following redirects.
    package func fetch(_ text: String) async throws -> Fetched {
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
                (response, body) = try await get(url)
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
    private func get(_ url: HTTPURL) async throws -> (FetchResponse, UploadedFile?) {
        let address: SocketAddress
        do {
            address = try await threadPool.runIfActive { [policy] in try policy.resolve(url) }
        } catch let refusal as EgressRefusal {
            throw Failure(error: MediaError(.inputRefused, refusal.message), status: nil)
        } catch {
            throw Failure(error: MediaError(.inputUnreachable, "\(error)"), status: nil)
        }
        let upload = try await threadPool.runIfActive { [store] in try store.makeUpload() }
        let head = FetchHead(maxSize: maxSize)
        let body = FetchBody(upload: upload, threadPool: threadPool, head: head, maxSize: maxSize)
        do {
            let response = try await client.send(
                .GET, url, address: address, headers: [("Accept", "*/*")], timeout: nil,
                connectTimeout: policy.connectTimeoutAmount, idleTimeout: policy.idleTimeoutAmount,
                onHead: { try head.accept($0, $1) },
                sink: { chunk in if head.isSuccess { try await body.append(chunk) } })
            let status = FetchResponse(response.status, response.headers)
            guard head.isSuccess else {
                try? await threadPool.runIfActive { upload.discard() }
                return (status, nil)
            }
            return (status, try await body.finish())
        } catch {
            try? await threadPool.runIfActive { upload.discard() }
            if let tooLarge = head.tooLarge { throw Failure(error: tooLarge, status: head.status) }
            throw Failure(error: MediaError(.inputUnreachable, "\(url.redacted): \(error)"), status: head.status)
        }
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
