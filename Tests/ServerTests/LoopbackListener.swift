import Foundation
import Glibc

/// A TCP listener on 127.0.0.1 that never answers, for proving that nothing connects to it. Its socket is
/// non-blocking, so counting connections never waits.
final class LoopbackListener: @unchecked Sendable {
    // The descriptor is set once in init and closed in deinit; one test owns the listener.
    private let fd: Int32
    let port: Int

    init() throws {
        (fd, port) = try Self.listeningSocket()
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            close(fd)
            throw Failure(what: "fcntl")
        }
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks, and that port.
    ///
    /// The address is built as the 16 bytes of a `sockaddr_in` (family, port and address at their fixed
    /// offsets) rather than through the struct's members: with `MemberImportVisibility`, which module's
    /// copy of `sockaddr_in` the compiler takes (Glibc's or one that SwiftNIO's C shims re-declare) varies
    /// between clean and incremental builds, and a member of the other copy fails to compile.
    static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket") }
        // sin_family (in host order), sin_port 0 (the kernel picks), sin_addr 127.0.0.1, eight bytes of zero.
        let family = withUnsafeBytes(of: sa_family_t(AF_INET)) { Array($0) }
        var address: [UInt8] = family + [0, 0, 127, 0, 0, 1] + Array(repeating: 0, count: 8)
        var length = socklen_t(address.count)
        let bound = address.withUnsafeMutableBytes { bytes in
            let pointer = bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
        }
        guard bound else {
            close(fd)
            throw Failure(what: "bind/listen")
        }
        return (fd, Int(address[2]) << 8 | Int(address[3]))
    }

    /// Connections made to the listener so far (each is accepted and closed).
    func acceptedConnections() -> Int {
        var count = 0
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return count }
            close(client)
            count += 1
        }
    }

    struct Failure: Error {
        var what: String
    }

    deinit { close(fd) }
}
