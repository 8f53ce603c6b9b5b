import MediadFoundation

/// The canonical form of a request that Signature Version 4 hashes and signs: the method, the encoded path,
/// the sorted query, the lower-cased and trimmed headers, the names of the signed headers, and the payload's
/// hash, one per line.
struct CanonicalRequest {
    /// `host;x-amz-date;…`: every header the signature covers, lower-cased and sorted.
    let signedHeaders: String
    /// The text that is hashed into the string to sign.
    let text: String

    init(_ request: SignableRequest) {
        var joined: [String: [String]] = [:]
        for (name, value) in request.headers {
            joined[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        let names = joined.keys.sorted()
        signedHeaders = names.joined(separator: ";")
        let headerLines = names.map { "\($0):\(joined[$0]!.joined(separator: ","))\n" }.joined()
        text = [
            request.method,
            Self.encodedPath(request.path),
            Self.canonicalQuery(request.query),
            headerLines,
            signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")
    }

    /// Each byte of the path but `/` and RFC 3986's unreserved characters as `%XX`: an S3 key is encoded
    /// once and never normalised (`a/../b` is a key of its own).
    static func encodedPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { PercentEncoding.encode(String($0)) }
            .joined(separator: "/")
    }

    /// Names and values encoded, then sorted by name and, for a repeated name, by value.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (PercentEncoding.encode($0.name), PercentEncoding.encode($0.value)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The value without leading and trailing white space, each run of spaces inside it one space.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingWhitespace()
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
