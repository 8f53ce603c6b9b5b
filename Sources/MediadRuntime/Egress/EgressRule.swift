import Foundation
import NIOCore

/// One entry of `--egress-allow`: a host name (`media.example.com`, that host alone), a domain
/// (`.example.com`: the name itself and every name under it), or an address range (`10.0.4.7`, `10.0.0.0/8`,
/// `::1`, `fd00::/8`).
///
/// Names decide which URLs may be asked for; ranges decide which addresses may be connected to. A URL that
/// names an address is allowed only by a range holding it, and an internal address (loopback, private,
/// link-local …) is connected to only when a range holds it, whatever name led there.
public enum EgressRule: Sendable, Equatable, CustomStringConvertible {
    case host(String)
    case domain(String)
    /// Network bytes (4 or 16) and prefix length.
    case range([UInt8], Int)

    public init(_ text: String) throws {
        let value = text.lowercased()
        let unbracketed = value.hasPrefix("[") && value.hasSuffix("]") ? String(value.dropFirst().dropLast()) : value
        let parts = unbracketed.split(separator: "/", omittingEmptySubsequences: false)
        if let bytes = Self.addressBytes(String(parts[0])) {
            let bits = bytes.count * 8
            guard parts.count <= 2 else { throw Self.invalid(text) }
            let prefix = parts.count == 2 ? Int(parts[1]) : bits
            guard let prefix, (0...bits).contains(prefix) else { throw Self.invalid(text) }
            self = .range(bytes, prefix)
            return
        }
        let isDomain = value.hasPrefix(".")
        let name = isDomain ? String(value.dropFirst()) : value
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("."), !name.contains(".."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else { throw Self.invalid(text) }
        self = isDomain ? .domain(name) : .host(name)
    }

    /// Parses a comma-separated list; blanks are skipped, so an empty text is an empty list.
    public static func list(_ text: String) throws -> [EgressRule] {
        try text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map(EgressRule.init)
    }

    /// Whether the rule allows a URL naming `host` (lowercase, IPv6 without brackets).
    package func allows(host: String) -> Bool {
        switch self {
        case .host(let name): host == name
        case .domain(let name): host == name || host.hasSuffix("." + name)
        case .range: Self.addressBytes(host).map(contains) ?? false
        }
    }

    /// Whether the rule is a range holding `address`.
    package func holds(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4): contains(withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6): contains(withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
        case .unixDomainSocket: false
        }
    }

    private func contains(_ address: [UInt8]) -> Bool {
        guard case .range(let network, let prefix) = self else { return false }
        let bytes = Self.unmapped(address)
        guard bytes.count == network.count else { return false }
        for bit in 0..<prefix where (bytes[bit / 8] ^ network[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
            return false
        }
        return true
    }

    /// An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) as its four IPv4 bytes; others unchanged.
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return bytes
        }
        return Array(bytes[12...])
    }

    /// The bytes of an IPv4 or IPv6 literal; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return unmapped(withUnsafeBytes(of: v6) { Array($0) }) }
        return nil
    }

    private static func invalid(_ text: String) -> Error {
        EgressRefusal(
            message: "'\(text)' is not an egress rule (a host name, .domain, an IP address or a CIDR range)")
    }

    public var description: String {
        switch self {
        case .host(let name): return name
        case .domain(let name): return "." + name
        case .range(let bytes, let prefix):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            bytes.withUnsafeBytes { _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, 64) }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return prefix == bytes.count * 8 ? address : "\(address)/\(prefix)"
        }
    }
}

/// Why the egress policy would not let a URL be fetched or written to.
public struct EgressRefusal: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
