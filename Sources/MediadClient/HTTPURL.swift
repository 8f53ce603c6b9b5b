import Foundation

/// An `http://` or `https://` URL split into what a request needs: scheme, host, port and request target.
///
/// Parsed by hand, strictly, because its host decides whom the server calls (webhooks): no user info, no
/// spaces or control characters, IPv6 literals only in brackets.
public struct HTTPURL: Sendable, Equatable, CustomStringConvertible {
    /// `https`: the connection is TLS, and the server's certificate must be valid for `host`.
    public var isSecure: Bool
    /// Lowercase; an IPv6 literal without its brackets.
    public var host: String
    public var port: Int
    /// Path and query, starting with `/`.
    public var target: String

    /// Why a URL was refused, for people.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        package init(message: String) {
            self.message = message
        }
    }

    public init(_ text: String) throws {
        guard text.utf8.count <= 2048 else { throw ParseError(message: "the URL is longer than 2048 bytes") }
        guard text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw ParseError(message: "the URL has spaces, control or non-ASCII characters")
        }
        let lower = text.lowercased()
        if lower.hasPrefix("https://") {
            isSecure = true
        } else if lower.hasPrefix("http://") {
            isSecure = false
        } else {
            throw ParseError(message: "the URL must start with http:// or https://")
        }
        let rest = text.dropFirst(isSecure ? "https://".count : "http://".count).prefix { $0 != "#" }
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
            port = isSecure ? 443 : 80
        }
        host = hostPart.lowercased()
        self.target = target.isEmpty ? "/" : target.hasPrefix("?") ? "/" + target : String(target)
    }

    /// The `Host` header: the host, bracketed when IPv6, with the port unless it is the scheme's own.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Whether the host is an IPv4 or IPv6 address rather than a name (TLS then checks the certificate
    /// against the address, and sends no server name).
    public var hostIsAddress: Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// The same server with another target.
    public func with(target: String) -> HTTPURL {
        var copy = self
        copy.target = target
        return copy
    }

    /// The URL without its query string, for records and messages: the query of a presigned URL is its
    /// signature, a secret.
    public var redacted: String {
        "\(isSecure ? "https" : "http")://\(hostHeader)\(target.prefix { $0 != "?" })"
    }

    public var description: String { "\(isSecure ? "https" : "http")://\(hostHeader)\(target)" }
}
