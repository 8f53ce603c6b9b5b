import Foundation
import MediadClient
import NIOCore

/// Where a callback is actually sent: its host resolved once, checked, and then connected to by address,
/// so the name cannot resolve elsewhere between the check and the connection.
///
/// A host name on `--webhook-allow` may only lead to public addresses. An address on a loopback, private,
/// link-local, shared (CGNAT), multicast or reserved range is allowed only when that address itself is
/// on the list: allowing `hooks.example.com` must not let its DNS point the server at `127.0.0.1` or the
/// cloud metadata service.
package enum CallbackAddress {
    /// Why a callback host was not called.
    package struct Refusal: Error, CustomStringConvertible {
        var message: String
        package var description: String { message }
    }

    /// Why a host could not be resolved at all (no such name, no DNS answer).
    package struct LookupFailure: Error, CustomStringConvertible {
        var message: String
        package var description: String { message }
    }

    /// Resolves `url`'s host (blocking: call on a thread pool) and returns the first address it may use.
    package static func resolve(_ url: HTTPURL, allowed: [HostPattern]) throws -> SocketAddress {
        try resolve(url, setting: "--webhook-allow") { text, _ in allowed.contains { $0.matches(text) } }
    }

    /// Resolves `url`'s host and returns the first address that is public or that `listed` (given the
    /// address as text and as a socket address) allows; `setting` names the allow list in the refusal.
    package static func resolve(
        _ url: HTTPURL, setting: String, listed: (String, SocketAddress) -> Bool
    ) throws -> SocketAddress {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(url.host, String(url.port), &hints, &list)
        guard status == 0, let list else {
            throw LookupFailure(message: "cannot resolve \(url.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var refused: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            guard let pointer = current.pointee.ai_addr else { continue }
            let address: SocketAddress
            switch Int32(pointer.pointee.sa_family) {
            case AF_INET:
                address = SocketAddress(
                    pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }, host: url.host)
            case AF_INET6:
                address = SocketAddress(
                    pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }, host: url.host)
            default:
                continue
            }
            guard let text = address.ipAddress else { continue }
            if !isInternal(address) || listed(text, address) { return address }
            refused.append(text)
        }
        throw Refusal(
            message:
                "\(url.host) resolves to \(refused.joined(separator: ", ")), an internal address not on \(setting)"
        )
    }

    /// True for loopback, private, link-local, CGNAT, multicast, unspecified and reserved addresses
    /// (IPv4, IPv6, and IPv4 mapped into IPv6).
    package static func isInternal(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return isInternal(v4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return isInternal(v4: bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
            }
            let unspecifiedOrLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1
            return unspecifiedOrLoopback || bytes[0] & 0xfe == 0xfc || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80)
                || bytes[0] == 0xff
        case .unixDomainSocket:
            return true
        }
    }

    private static func isInternal(v4 value: UInt32) -> Bool {
        let ranges: [(UInt32, Int)] = [
            (0x0000_0000, 8), (0x0a00_0000, 8), (0x6440_0000, 10), (0x7f00_0000, 8), (0xa9fe_0000, 16),
            (0xac10_0000, 12), (0xc000_0000, 24), (0xc0a8_0000, 16), (0xc612_0000, 15), (0xe000_0000, 4),
            (0xf000_0000, 4),
        ]
        return ranges.contains { base, bits in value >> (32 - bits) == base >> (32 - bits) }
    }
}
