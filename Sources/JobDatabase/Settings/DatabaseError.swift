/// Why the database could not be used: a stable code and one line for people, never holding a password.
///
/// Configuration and connection failures are reported this way so that `mediad serve --database …` can print
/// one clear line and exit 1 instead of hanging or dumping a driver's error.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes, one per way the database can be unusable.
    public enum Code: String, Sendable, CaseIterable {
        /// The URL is not a `postgres://` URL this build understands.
        case invalidURL = "invalid_database_url"
        /// Nothing accepts connections at the URL's host and port (or it could not be resolved or reached).
        case connectionRefused = "database_unreachable"
        /// The server refused the user or password.
        case authenticationFailed = "database_authentication_failed"
        /// The server has no database of the URL's name.
        case databaseMissing = "database_missing"
        /// TLS was required (`sslmode`) and could not be set up.
        case tlsFailed = "database_tls_failed"
        /// The schema was written by a newer mediad than this one.
        case schemaTooNew = "database_schema_too_new"
        /// A query failed for another reason.
        case queryFailed = "database_query_failed"
    }

    public var code: Code
    /// One line, without the password.
    public var message: String
    /// The server answered the statement with an error, so it changed nothing (a statement's transaction
    /// rolls back whole). False when no answer came: then whether the statement took effect is unknown.
    public var refusedByServer = false

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
