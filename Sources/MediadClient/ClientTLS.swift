import Foundation
import NIOSSL

/// How `HTTPClient` makes `https` connections: TLS 1.2 or later, the server's certificate verified against
/// the system's certificate authorities (Debian's `ca-certificates`) and, when given, those of a PEM file,
/// and checked against the URL's host name (or, for a URL naming an address, against that address).
///
/// One context holds the loaded authorities and serves every connection of a client. A machine without a
/// system bundle still gets a client (plain http needs none, and a CA file may be all https needs); its
/// refusals then say that the bundle is missing.
public struct ClientTLS: Sendable {
    let context: NIOSSLContext
    /// Whether the system's certificate authorities were found and are trusted.
    let hasSystemAuthorities: Bool

    /// Why the TLS settings could not be made, for people.
    public struct SetupError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// `extraAuthorities`: a PEM file of certificate authorities trusted besides the system's, e.g. a
    /// company's internal CA. A file that is missing or holds no certificate is an error now, not at the
    /// first connection.
    public init(extraAuthorities: String? = nil) throws {
        let extra = try Self.certificates(in: extraAuthorities)
        do {
            try self.init(extra: extra, systemAuthorities: true)
        } catch {
            try self.init(extra: extra, systemAuthorities: false)
        }
    }

    /// Trusts `extra`, and the system's authorities only when `systemAuthorities` (loading them throws on a
    /// machine without a bundle).
    init(extra: [NIOSSLCertificate], systemAuthorities: Bool) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if !systemAuthorities { configuration.trustRoots = .certificates([]) }
        if !extra.isEmpty { configuration.additionalTrustRoots = [.certificates(extra)] }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw SetupError(message: "cannot set up TLS: \(error)")
        }
        hasSystemAuthorities = systemAuthorities
    }

    /// The certificates of the PEM file at `path`; none without a path.
    static func certificates(in path: String?) throws -> [NIOSSLCertificate] {
        guard let path else { return [] }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw SetupError(message: "cannot read PEM certificates from \(path): \(error)")
        }
        guard !certificates.isEmpty else { throw SetupError(message: "\(path) holds no PEM certificate") }
        return certificates
    }

    /// The handler that runs TLS on a new connection to `url`: it sends the host as the server name (SNI)
    /// and verifies the certificate for it.
    func handler(for url: HTTPURL) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: url.hostIsAddress ? nil : url.host)
    }

    /// A sentence for a TLS failure people meet (an untrusted or misnamed certificate); nil for other errors.
    func explain(_ error: any Error, for url: HTTPURL) -> String? {
        switch error {
        case NIOSSLError.handshakeFailed(let reason) where "\(reason)".contains("CERTIFICATE_VERIFY_FAILED"):
            hasSystemAuthorities
                ? "the server's certificate is not signed by a trusted authority (add it with a CA file)"
                : "the server's certificate is not signed by a trusted authority, and this machine has no system "
                    + "certificate authorities (install ca-certificates, or add the authority with a CA file)"
        case let extra as NIOSSLExtraError where extra == .failedToValidateHostname:
            "the server's certificate is not valid for \(url.host)"
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            "TLS failed: \(error)"
        default:
            nil
        }
    }
}
