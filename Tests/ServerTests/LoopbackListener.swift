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
    static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw Failure(what: "bind/listen")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
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
