/// An `http://` URL split into what a request needs: host, port and request target.
///
/// Parsed by hand, strictly, because its host decides whom the server calls (webhooks): no user info, no
/// spaces or control characters, IPv6 literals only in brackets. `https` is refused: mediad has no TLS
/// stack, so TLS goes through a local proxy (see the README).
public struct HTTPURL: Sendable, Equatable, CustomStringConvertible {
    /// Lowercase; an IPv6 literal without its brackets.
    public var host: String
    public var port: Int
    /// Path and query, starting with `/`.
    public var target: String

    /// Why a URL was refused, for people.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(_ text: String) throws {
        guard text.utf8.count <= 2048 else { throw ParseError(message: "the URL is longer than 2048 bytes") }
        guard text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw ParseError(message: "the URL has spaces, control or non-ASCII characters")
        }
        let lower = text.lowercased()
        if lower.hasPrefix("https://") {
            throw ParseError(
                message: "https URLs are not supported (mediad has no TLS client); use http to a local TLS proxy")
        }
        guard lower.hasPrefix("http://") else { throw ParseError(message: "the URL must start with http://") }
        let rest = text.dropFirst("http://".count).prefix { $0 != "#" }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let target = rest.dropFirst(authority.count)
        guard !authority.contains("@") else { throw ParseError(message: "the URL must not carry user information") }
        var hostPart = Substring(authority)
        var portPart: Substring? = nil
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw ParseError(message: "unclosed [ in the host") }
            let after = hostPart[hostPart.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ParseError(message: "junk after the IPv6 address") }
                portPart = after.dropFirst()
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ParseError(message: "not an IPv6 address: \(hostPart)")
            }
        } else {
            let pieces = hostPart.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw ParseError(message: "an IPv6 host must be written in brackets") }
            hostPart = pieces[0]
            portPart = pieces.count == 2 ? pieces[1] : nil
            guard !hostPart.isEmpty,
                hostPart.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
            else { throw ParseError(message: "the URL has no valid host") }
        }
        if let portPart {
            guard let port = Int(portPart), (1...65535).contains(port) else {
                throw ParseError(message: "the port must be a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = 80
        }
        host = hostPart.lowercased()
        self.target = target.isEmpty ? "/" : target.hasPrefix("?") ? "/" + target : String(target)
    }

    /// The `Host` header: the host, bracketed when IPv6, with the port unless it is 80.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    /// The same server with another target.
    public func with(target: String) -> HTTPURL {
        var copy = self
        copy.target = target
        return copy
    }

    public var description: String { "http://\(hostHeader)\(target)" }
}
