import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

extension DatabaseError {
    /// What failed when connecting to `settings`' database, as one line with the code that names it: the
    /// server unreachable, the user or password refused, the database missing, TLS refused or failing.
    static func connecting(_ error: any Error, to settings: DatabaseSettings) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        let target = "the database at \(settings)"
        guard let error = error as? PSQLError else {
            return DatabaseError(.connectionRefused, "cannot connect to \(target): \(oneLine(error))")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "the server refused the connection"
            switch state {
            // invalid_password, invalid_authorization_specification
            case "28P01", "28000":
                return DatabaseError(.authenticationFailed, "\(target) refused the login: \(message)")
            // invalid_catalog_name
            case "3D000":
                return DatabaseError(.databaseMissing, "\(target) does not exist: \(message)")
            default:
                return DatabaseError(.connectionRefused, "\(target) refused the connection: \(message) (\(state))")
            }
        case .authMechanismRequiresPassword:
            return DatabaseError(.authenticationFailed, "\(target) asks for a password and the URL has none")
        case .unsupportedAuthMechanism, .saslError:
            return DatabaseError(.authenticationFailed, "\(target) refused the login (\(error.code))")
        case .sslUnsupported:
            return DatabaseError(
                .tlsFailed, "\(target) does not offer TLS, which sslmode=\(settings.sslMode.rawValue) requires")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return DatabaseError(.tlsFailed, "cannot set up TLS with \(target) (\(error.code))")
        default:
            let cause = error.underlying.map(oneLine) ?? "\(error.code)"
            let code: Code = error.underlying is NIOSSLError ? .tlsFailed : .connectionRefused
            return DatabaseError(code, "cannot connect to \(target): \(cause)")
        }
    }

    /// A query that failed once connected: the server's message and SQLSTATE, or the driver's code.
    static func query(_ error: any Error, _ what: String) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        if let error = error as? PostgresTransactionError,
            let cause = error.closureError ?? error.beginError ?? error.commitError
        {
            return query(cause, what)
        }
        guard let error = error as? PSQLError else {
            return DatabaseError(.queryFailed, "\(what) failed: \(oneLine(error))")
        }
        if let message = error.serverInfo?[.message] {
            var refused = DatabaseError(
                .queryFailed, "\(what) failed: \(message) (\(error.serverInfo?[.sqlState] ?? "no SQLSTATE"))")
            refused.refusedByServer = true
            return refused
        }
        let cause = error.underlying.map(oneLine) ?? "\(error.code)"
        return DatabaseError(.queryFailed, "\(what) failed: \(cause)")
    }

    /// An error as one short line: the system's words for an errno, a connect timeout named so, and never
    /// a multi-line dump.
    private static func oneLine(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let failure = error.connectionErrors.first { return oneLine(failure.error) }
            return error.dnsAError.map(oneLine) ?? "the host name could not be resolved"
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        if let error = error as? ChannelError, case .connectTimeout(let timeout) = error {
            return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
        }
        return String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
