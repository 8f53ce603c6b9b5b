import Foundation
import MediaCore
import MediadClient
import NIOCore

/// What the server may fetch inputs from (`input_url`) and write outputs to (`output_url`): the
/// `--egress-allow` list, the timeouts, how many redirects are followed and how `https` peers are verified.
///
/// An empty list (the default) turns URL inputs and outputs off. A URL is checked at submission (scheme,
/// host, a literal address) and again at every connection and redirect: its host is resolved once, an
/// internal address (loopback, private, link-local, CGNAT, multicast, reserved) is used only when a range
/// on the list holds it, and the connection goes to that address, so DNS cannot answer differently between
/// the check and the connection.
public struct EgressPolicy: Sendable {
    public var rules: [EgressRule] = []
    /// How long a connection may take to open.
    public var connectTimeout: TimeInterval = 10
    /// How long a transfer may go without a byte either way.
    public var idleTimeout: TimeInterval = 30
    /// How long fetching all of a job's URL inputs may take, redirects included (`--input-timeout`): an hour
    /// brings 4 GiB (`--max-upload`) at 1.2 MB/s, and a fetch slot is not held for the job's whole ceiling.
    public var inputTimeout: TimeInterval = 3600
    /// Redirects followed when fetching an input, each checked like the first URL.
    public var maxRedirects = 5
    /// How `https` peers are verified; the same authorities as webhooks (`--webhook-ca-file`). Nil: the
    /// system's alone.
    public var tls: ClientTLS? = nil

    /// The longest URL accepted, as openapi.yaml's `maxLength` says.
    package static let maxURLLength = 2048

    public init() {}

    public var isEnabled: Bool { !rules.isEmpty }

    /// Checks a URL at submission: `egress_disabled` when the server allows no egress, `input_refused` (or
    /// `code`) when the URL is not http(s), too long, carries user information, or names a host or address
    /// the list does not allow. `field` names the option in messages.
    package func check(_ text: String, field: String, code: MediaError.Code = .inputRefused) throws -> HTTPURL {
        guard isEnabled else {
            throw MediaError(
                .egressDisabled, "\(field) is not available: this server allows no egress (--egress-allow)")
        }
        guard text.count <= Self.maxURLLength else {
            throw MediaError(code, "\(field) is over \(Self.maxURLLength) characters")
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(text)
        } catch {
            throw MediaError(code, "\(field): \(error)")
        }
        guard rules.contains(where: { $0.allows(host: url.host) }) else {
            throw MediaError(code, "\(field): the host \(url.host) is not one this server may reach (--egress-allow)")
        }
        return url
    }

    /// The address to connect to for `url` (blocking: call on a thread pool): `EgressRefusal` when its host
    /// is not allowed or resolves only to internal addresses no range holds, `CallbackAddress.LookupFailure`
    /// when it does not resolve.
    package func resolve(_ url: HTTPURL) throws -> SocketAddress {
        guard rules.contains(where: { $0.allows(host: url.host) }) else {
            throw EgressRefusal(message: "the host \(url.host) is not one this server may reach (--egress-allow)")
        }
        do {
            return try CallbackAddress.resolve(url, setting: "--egress-allow") { _, address in
                rules.contains { $0.holds(address) }
            }
        } catch let refusal as CallbackAddress.Refusal {
            throw EgressRefusal(message: refusal.description)
        }
    }

    var connectTimeoutAmount: TimeAmount { .milliseconds(Int64(connectTimeout * 1000)) }
    var idleTimeoutAmount: TimeAmount { .milliseconds(Int64(idleTimeout * 1000)) }
}
