import NIOSSL
import PostgresNIO

/// How a connection uses TLS, as libpq's `sslmode` says: `disable` never, `prefer` when the server offers it,
/// `require` always (without checking the certificate), `verify-ca` always with a certificate signed by a
/// trusted authority, `verify-full` that and the certificate naming the host.
public enum SSLMode: String, Sendable, CaseIterable {
    case disable, prefer, require
    case verifyCA = "verify-ca"
    case verifyFull = "verify-full"

    /// The TLS configuration of this mode; nil for `disable`.
    func tlsConfiguration(rootCertificatePath: String?) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch self {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificatePath { configuration.trustRoots = .file(rootCertificatePath) }
        return configuration
    }
}

extension DatabaseSettings {
    /// The configuration of the connection pool that runs the queries.
    public var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        if let configuration = sslMode.tlsConfiguration(rootCertificatePath: rootCertificatePath) {
            tls = sslMode == .prefer ? .prefer(configuration) : .require(configuration)
        } else {
            tls = .disable
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// The configuration of a single connection (the first one, which checks the settings and migrates the
    /// schema, and listeners). Throws `database_tls_failed` when the TLS settings cannot be used (an
    /// unreadable `sslrootcert`).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        if let configuration = sslMode.tlsConfiguration(rootCertificatePath: rootCertificatePath) {
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw DatabaseError(
                    .tlsFailed, "cannot set up TLS for \(self) (sslrootcert \(rootCertificatePath ?? "-")): \(error)")
            }
            tls = sslMode == .prefer ? .prefer(context) : .require(context)
        } else {
            tls = .disable
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(Int64(connectTimeout))
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }
}
