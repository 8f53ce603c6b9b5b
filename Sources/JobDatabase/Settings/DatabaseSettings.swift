import Foundation
import MediadFoundation

/// Where the database is and how to reach it, as read from a `postgres://` URL (`--database`,
/// `MEDIAD_DATABASE_URL`).
///
/// The URL is `postgres[ql]://user[:password]@host[:port][/database][?parameters]`, user, password and
/// database percent-decoded, the port 5432 unless given, the database the user's name unless given (as
/// PostgreSQL itself does). The parameters are `sslmode` (`disable`, `prefer` (the default), `require`,
/// `verify-ca`, `verify-full`, as libpq reads them), `sslrootcert` (a PEM file of the certificates to trust
/// instead of the system's) and `connect_timeout` (whole seconds, 10 unless given); any other parameter is
/// refused rather than ignored, so a mistyped one never goes unnoticed.
public struct DatabaseSettings: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    /// Nil when the URL has none (the server may trust the user); never shown in a message.
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// The certificates to trust, when not the system's.
    public var rootCertificatePath: String?
    /// How long connecting may take before the database counts as unreachable, in seconds.
    public var connectTimeout: Int
    /// The replica these connections work for. Each connection names itself `mediad/<replica>` to the
    /// server (`application_name`), which shows in `pg_stat_activity` and in the change notifications that
    /// its writes send (`JobChange.writer`). Not part of the URL.
    public var replica: String? = nil

    /// The `application_name` of the connections: `mediad/<replica>`, or `mediad` for no replica.
    var applicationName: String { replica.map { Self.applicationNamePrefix + $0 } ?? "mediad" }

    /// What a replica's `application_name` starts with.
    static let applicationNamePrefix = "mediad/"

    /// The settings a `postgres://` or `postgresql://` URL stands for; `invalid_database_url` otherwise,
    /// with a message that says what is wrong and never holds the password.
    public init(url: String) throws {
        guard let separator = url.range(of: "://") else {
            throw Self.invalid("it is not a URL: expected postgres://user:password@host:port/database")
        }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Self.invalid("the scheme is \(scheme.isEmpty ? "missing" : "'\(scheme)'"), not postgres://")
        }
        var rest = url[separator.upperBound...]
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash < rest.endIndex ? rest[rest.index(after: slash)...] : ""
        guard let at = authority.lastIndex(of: "@") else {
            throw Self.invalid("it names no user: expected postgres://user:password@host…")
        }
        let userInfo = authority[..<at]
        let colon = userInfo.firstIndex(of: ":")
        user = try Self.decode(userInfo[..<(colon ?? userInfo.endIndex)], "user name")
        password = try colon.map { try Self.decode(userInfo[userInfo.index(after: $0)...], "password") }
        guard !user.isEmpty else { throw Self.invalid("the user name is empty") }
        (host, port) = try Self.hostAndPort(authority[authority.index(after: at)...])
        let name = try Self.decode(path, "database name")
        guard !name.contains("/") else { throw Self.invalid("the path has more than a database name") }
        database = name.isEmpty ? user : name
        sslMode = .prefer
        connectTimeout = 10
        try readParameters(query)
    }

    /// The URL without its password, fit for messages and logs.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(PercentEncoding.encode(user))@\(shownHost):\(port)/\(PercentEncoding.encode(database))"
    }

    /// Reads `name=value&…`, each parameter at most once.
    private mutating func readParameters(_ query: Substring) throws {
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], "parameter name")
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", "value of \(name)")
            guard seen.insert(name).inserted else { throw Self.invalid("the parameter \(name) is given twice") }
            switch name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw Self.invalid("sslmode '\(value)' is not one of \(modes)")
                }
                sslMode = mode
            case "sslrootcert":
                guard !value.isEmpty else { throw Self.invalid("sslrootcert is empty") }
                rootCertificatePath = value
            case "connect_timeout":
                guard let seconds = Int(value), (1...3600).contains(seconds) else {
                    throw Self.invalid("connect_timeout '\(value)' is not a number of seconds in 1...3600")
                }
                connectTimeout = seconds
            default:
                throw Self.invalid(
                    "the parameter '\(name)' is not one mediad knows (sslmode, sslrootcert, connect_timeout)")
            }
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(_ text: Substring) throws -> (String, Int) {
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid("the IPv6 address has no ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                port = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        let decoded = try decode(host, "host")
        guard !decoded.isEmpty else { throw invalid("it names no host") }
        guard let port else { return (decoded, 5432) }
        guard port.allSatisfy(\.isASCII), let number = Int(port), (1...65535).contains(number) else {
            throw invalid("the port '\(port)' is not a number in 1...65535")
        }
        return (decoded, number)
    }

    private static func decode(_ text: Substring, _ what: String) throws -> String {
        guard let decoded = PercentEncoding.decode(String(text)) else {
            throw invalid("the \(what) has a malformed %-escape")
        }
        return decoded
    }

    private static func invalid(_ reason: String) -> DatabaseError {
        DatabaseError(.invalidURL, "the database URL is not usable: \(reason)")
    }
}
