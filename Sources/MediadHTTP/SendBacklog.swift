import Glibc
import NIOCore

/// What a connection has written that its client has not taken yet, as NIO and the kernel count it: the
/// bytes the client has acknowledged so far, and whether any byte still waits — in NIO's buffer, in the
/// kernel's send queue, or sent and not yet acknowledged.
///
/// NIO's buffer alone cannot tell a client that stopped reading from one that reads: small writes (an
/// event stream's heartbeats) go on fitting in the kernel's socket buffers long after the client has
/// stopped, and the buffer stays empty. What the client's TCP acknowledges is what has left the server;
/// once its receive buffer is full, the acknowledged count stops moving while bytes wait on this side.
struct SendBacklog {
    /// Bytes of the connection the client's TCP has acknowledged (`tcpi_bytes_acked`).
    var acknowledged: UInt64
    /// Whether a written byte is still on its way: NIO's buffer, unsent or unacknowledged kernel bytes.
    var isWaiting: Bool

    /// The kernel's `struct tcp_info` (linux/tcp.h) as raw bytes, larger than the 232 of Linux 6: Glibc's
    /// copy of the struct stops before the fields read here, and the kernel fills what it has (a kernel
    /// older than 4.1 leaves the byte counts zero, and only an empty backlog then counts as progress).
    private typealias TCPInfo = InlineArray<32, UInt64>
    /// Offsets of the fields read, fixed by the kernel's ABI (fields are only ever appended).
    private static let unackedSegmentsOffset = 24
    private static let bytesAcknowledgedOffset = 120
    private static let notSentBytesOffset = 144

    /// Reads the backlog of `channel` on its event loop; a channel that is not a TCP socket (or no longer
    /// open) reports NIO's buffer alone, and nothing acknowledged.
    static func read(_ channel: any Channel) -> EventLoopFuture<SendBacklog> {
        let buffered = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        let nothingKnown = SendBacklog(acknowledged: 0, isWaiting: buffered > 0)
        guard let socket = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nothingKnown)
        }
        let info: EventLoopFuture<TCPInfo> = socket.unsafeGetSocketOption(
            level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_INFO))
        return info.map { info in
            withUnsafeBytes(of: info) { bytes in
                let unacked = bytes.loadUnaligned(fromByteOffset: unackedSegmentsOffset, as: UInt32.self)
                let notSent = bytes.loadUnaligned(fromByteOffset: notSentBytesOffset, as: UInt32.self)
                return SendBacklog(
                    acknowledged: bytes.loadUnaligned(fromByteOffset: bytesAcknowledgedOffset, as: UInt64.self),
                    isWaiting: buffered > 0 || unacked > 0 || notSent > 0)
            }
        }.recover { _ in nothingKnown }
    }
}
