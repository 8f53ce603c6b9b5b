import Foundation
import MediadClient

/// One entry of `--webhook-allow`: a host name (`hooks.example.com`), a wildcard for its subdomains
/// (`*.ci.internal` matches `a.ci.internal` and `a.b.ci.internal`, not `ci.internal`), or an IP literal
/// (`127.0.0.1`, `::1` or `[::1]`). Matching is on the host as written in the callback URL, ignoring case.
public struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    private let name: String
    private let wildcard: Bool

    public init(_ text: String) throws {
        var value = text.lowercased()
        if value.hasPrefix("["), value.hasSuffix("]") { value = String(value.dropFirst().dropLast()) }
        wildcard = value.hasPrefix("*.")
        if wildcard { value = String(value.dropFirst(2)) }
        guard !value.isEmpty,
            value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") })
        else {
            throw HTTPURL.ParseError(
                message: "'\(text)' is not a host pattern (a host name, *.domain, or an IP address)")
        }
        name = value
    }

    /// Parses a comma-separated list; blanks are skipped, so an empty text is an empty list.
    public static func list(_ text: String) throws -> [HostPattern] {
        try text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map(HostPattern.init)
    }

    /// Whether `host` (lowercase, IPv6 without brackets, as `HTTPURL` gives it) is allowed.
    public func matches(_ host: String) -> Bool {
        wildcard ? host.hasSuffix("." + name) : host == name
    }

    public var description: String { wildcard ? "*." + name : name }
}
