import Digests
import Foundation
import MediadHTTP

/// API tokens from `--auth-tokens FILE`: one `name:token[:admin]` a line (`#` starts a comment).
///
/// Tokens are kept only as SHA-256 digests and compared in constant time (`ConstantTime`) against every
/// entry, so neither the comparison nor the lookup reveals how much of a guess was right.
/// A token never appears in a log line, an error message or a job record: jobs record the token's name.
public struct AccessTokens: Sendable {
    /// Who made a request.
    public typealias Caller = RequestCaller

    private struct Entry: Sendable {
        var caller: Caller
        var digest: [UInt8]
    }

    private let entries: [Entry]

    /// Parses the token file's text; throws with the line number of a malformed line.
    public init(fileContents text: String) throws {
        var entries: [Entry] = []
        var names: Set<String> = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (2...3).contains(fields.count), !fields[0].isEmpty, fields[1].count >= 16,
                fields.count == 2 || fields[2] == "admin"
            else {
                throw TokenFileError(
                    message: "line \(number + 1): expected name:token[:admin] with a token of 16 characters or more")
            }
            guard names.insert(fields[0]).inserted else {
                throw TokenFileError(message: "line \(number + 1): the name \(fields[0]) is used twice")
            }
            entries.append(
                Entry(caller: Caller(name: fields[0], isAdmin: fields.count == 3), digest: Self.digest(fields[1])))
        }
        guard !entries.isEmpty else { throw TokenFileError(message: "the token file has no tokens") }
        self.entries = entries
    }

    /// The caller a `Authorization: Bearer …` header value identifies, or nil.
    func caller(authorization: String?) -> Caller? {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return nil }
        let presented = Self.digest(
            String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        var found: Caller? = nil
        for entry in entries where ConstantTime.equal(entry.digest, presented) {
            found = entry.caller
        }
        return found
    }

    private static func digest(_ token: String) -> [UInt8] {
        let hasher = SHA256Hasher()
        Array(token.utf8).withUnsafeBytes { hasher.update($0) }
        return Array(hasher.finalize().utf8)
    }

    /// A token file that cannot be used.
    public struct TokenFileError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
