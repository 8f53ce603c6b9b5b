import Foundation

/// Finds the keys requests to the store are signed with, the way AWS's tools do: the environment
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) first, then the shared credentials
/// file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`) under the `AWS_PROFILE` profile, else
/// `[default]`.
///
/// Loaded once at start-up so that missing or half-given keys are a one-line error naming what to set,
/// never an anonymous request the store refuses later.
public enum S3Credentials {
    /// Why no credentials could be loaded, for people.
    public struct Missing: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The credentials `environment` leads to.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Missing) -> SigningCredentials
    {
        let given = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch (given("AWS_ACCESS_KEY_ID"), given("AWS_SECRET_ACCESS_KEY")) {
        case (let key?, let secret?):
            return SigningCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: given("AWS_SESSION_TOKEN"))
        case (.some, nil):
            throw Missing(message: "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
        case (nil, .some):
            throw Missing(message: "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not")
        case (nil, nil):
            break
        }
        let explicit = given("AWS_SHARED_CREDENTIALS_FILE")
        let path = explicit ?? ((given("HOME") ?? NSHomeDirectory()) + "/.aws/credentials")
        let profile = given("AWS_PROFILE") ?? "default"
        guard let data = FileManager.default.contents(atPath: path) else {
            if explicit != nil { throw Missing(message: "cannot read AWS_SHARED_CREDENTIALS_FILE \(path)") }
            throw Missing(
                message: "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give them in "
                    + "\(path) under [\(profile)]")
        }
        guard let values = sections(String(decoding: data, as: UTF8.self))[profile] else {
            throw Missing(message: "\(path) has no [\(profile)] profile")
        }
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw Missing(
                message: "the [\(profile)] profile of \(path) needs aws_access_key_id and aws_secret_access_key")
        }
        return SigningCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }

    /// The INI file's sections: `[name]` lines, then `key = value` lines; `#` and `;` lines are comments.
    /// Names are kept as written, keys lower-cased, values trimmed (empty values dropped).
    static func sections(_ text: String) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var current: String? = nil
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name
                if result[name] == nil { result[name] = [:] }
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { result[current]?[key] = value }
        }
        return result
    }
}
