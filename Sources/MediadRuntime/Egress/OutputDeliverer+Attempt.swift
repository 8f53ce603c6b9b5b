import Foundation
import MediadClient
import NIOCore
import NIOHTTP1
import NIOPosix

extension OutputDeliverer {
    /// How one PUT ended.
    struct Attempt {
        enum Verdict {
            case delivered, retry, failed
        }

        var verdict: Verdict
        var status: Int?
        var etag: String?
        var error: String?
    }

    /// One PUT of `file` to `url`: resolved and pinned by the egress policy, streamed with `Content-Length`
    /// and `Content-Type`. A 2xx is delivered (with the target's `ETag`); 5xx, 408, 429 and network
    /// failures may be retried; other answers and refused addresses may not.
    func attempt(_ url: HTTPURL, file: String, name: String) async -> Attempt {
        let address: SocketAddress
        do {
            address = try await NIOThreadPool.singleton.runIfActive { [policy] in try policy.resolve(url) }
        } catch let refusal as EgressRefusal {
            return Attempt(verdict: .failed, error: refusal.message)
        } catch {
            return Attempt(verdict: .retry, error: "\(error)")
        }
        do {
            let response = try await client.send(
                .PUT, url, address: address, headers: [("Content-Type", OutputContentType.of(name))],
                body: .file(file), timeout: nil, connectTimeout: policy.connectTimeoutAmount,
                idleTimeout: policy.idleTimeoutAmount, maxBody: 1 << 20)
            let status = response.status
            if (200..<300).contains(status) {
                return Attempt(verdict: .delivered, status: status, etag: response.headers.first(name: "etag"))
            }
            let retryable = status >= 500 || status == 408 || status == 429
            return Attempt(
                verdict: retryable ? .retry : .failed, status: status, error: "the target answered \(status)")
        } catch {
            return Attempt(verdict: .retry, error: "\(error)")
        }
    }
}
