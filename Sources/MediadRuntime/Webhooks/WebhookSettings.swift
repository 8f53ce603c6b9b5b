import Foundation
import MediaCore
import MediadClient

/// How the server calls `callback_url`s: the signing secret, the hosts it may call, and the retry policy.
///
/// Callbacks are off unless both a secret and at least one allowed host are set; a job asking for one on
/// a server without them is refused, so a client never believes it will be called when it will not.
public struct WebhookSettings: Sendable {
    /// The HMAC-SHA256 key of `Mediad-Signature`.
    public var secret: String? = nil
    /// `--webhook-allow`: the only hosts a callback may go to.
    public var allowedHosts: [HostPattern] = []
    /// The first retry's delay; each further one doubles it (at most 2 minutes), with jitter.
    public var retryBase: TimeInterval = 5
    /// How long after the job ended deliveries are attempted.
    public var retryWindow: TimeInterval = 600
    /// How long one attempt may take, connection included.
    public var attemptTimeout: TimeInterval = 10
    /// How `https` receivers are verified; `--webhook-ca-file` adds authorities to the system's. Nil: the
    /// system's alone.
    public var tls: ClientTLS? = nil

    /// The longest `callback_url`, as openapi.yaml's `maxLength` says.
    package static let maxURLLength = 2048

    public init() {}

    /// Checks a job's `callback_url` at submit time: `invalid_option` (400) unless callbacks are on, the URL
    /// is `http` or `https`, at most `maxURLLength` characters, and its host is allowed.
    package func check(_ text: String) throws -> HTTPURL {
        guard let secret, !secret.isEmpty else {
            throw MediaError(
                .invalidOption,
                "callback_url is not available: this server has no --webhook-secret to sign callbacks with")
        }
        guard !allowedHosts.isEmpty else {
            throw MediaError(
                .invalidOption, "callback_url is not available: this server allows no callback hosts (--webhook-allow)")
        }
        guard text.count <= Self.maxURLLength else {
            throw MediaError(.invalidOption, "callback_url is over \(Self.maxURLLength) characters")
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(text)
        } catch {
            throw MediaError(
                .invalidOption, "callback_url: \(error)")
        }
        guard allowedHosts.contains(where: { $0.matches(url.host) }) else {
            throw MediaError(
                .invalidOption, "callback_url: the host \(url.host) is not one this server may call (--webhook-allow)")
        }
        return url
    }

    /// The delay before attempt `number` (2, 3, …): `retryBase` doubled per attempt, capped at 2 minutes,
    /// then drawn uniformly from its upper half so that many receivers failing together do not retry in step.
    package func delay(beforeAttempt number: Int) -> TimeInterval {
        let full = min(retryBase * pow(2, Double(max(0, number - 2))), max(retryBase, 120))
        return Double.random(in: (full / 2)...full)
    }
}
