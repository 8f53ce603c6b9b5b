import NIOCore
import NIOHTTP1

/// Closes a connection whose client stops taking a response: for `timeout`, bytes of it wait and the
/// client acknowledges none (nginx's `send_timeout`).
///
/// A client that asks for a large output and never reads holds a connection, a descriptor and the file
/// (a deleted output stays on disk while it is open); one that follows an event stream and never reads
/// holds a connection and a stream for as long as the server has events and heartbeats to write. While
/// bytes of a response wait, this handler reads the connection's `SendBacklog` a few times per `timeout`:
/// as long as the client's TCP acknowledges more, or nothing waits any more, the client is reading; when
/// bytes wait and the acknowledged count stays put for `timeout`, the connection is closed. The kernel's
/// count is the one that tells: small writes such as heartbeats fit in NIO's and the kernel's buffers
/// long after the client has stopped, but once the client's receive buffer is full nothing more is
/// acknowledged. The bytes of a file sent with sendfile count too. Time in which the server has nothing
/// waiting to be sent (a long poll waiting for its job, an event stream between events) never counts.
///
/// Watching starts at a flush, while a response is under way or its end has not yet been taken by the
/// socket, and stops as soon as nothing waits: most answers (a job's JSON) reach the socket whole within
/// their flush and never need the check, which cost a timer set and cancelled per request; a stream
/// starts it again at its next write.
package final class SendTimeout: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var check: Scheduled<Void>?
    /// From a response's final head until its end has been written.
    private var responding = false
    /// A response's end was written and has not been flushed yet.
    private var endUnflushed = false
    /// What the client had acknowledged at the last progress; nil until the first look.
    private var lastAcknowledged: UInt64?
    private var lastProgress = NIODeadline.now()

    package init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        stopWatching()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            stopWatching()
            responding = true
        case .end:
            responding = false
            endUnflushed = true
        default:
            break
        }
        context.write(data, promise: promise)
    }

    package func flush(context: ChannelHandlerContext) {
        context.flush()
        let ended = endUnflushed
        endUnflushed = false
        guard check == nil, responding || (ended && Self.buffered(context) > 0) else { return }
        startWatching(context)
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all { stopWatching() }
        context.close(mode: mode, promise: promise)
    }

    private func startWatching(_ context: ChannelHandlerContext) {
        stopWatching()
        lastAcknowledged = nil
        lastProgress = .now()
        scheduleCheck(context, in: min(.seconds(1), .nanoseconds(max(1, timeout.nanoseconds / 4))))
    }

    /// Looks at the backlog after `interval`, then again until nothing waits or the client is closed.
    private func scheduleCheck(_ context: ChannelHandlerContext, in interval: TimeAmount) {
        check = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            SendBacklog.read(context.channel).assumeIsolated().whenSuccess { [self] backlog in
                // Watching stopped (the channel closed, a new response began) while the kernel was asked.
                guard check != nil else { return }
                guard backlog.isWaiting else {
                    check = nil
                    return
                }
                let now = NIODeadline.now()
                if backlog.acknowledged != lastAcknowledged {
                    lastAcknowledged = backlog.acknowledged
                    lastProgress = now
                } else if now - lastProgress >= timeout {
                    check = nil
                    context.close(promise: nil)
                    return
                }
                scheduleCheck(context, in: interval)
            }
        }
    }

    /// Bytes written to the channel that the socket has not taken yet.
    private static func buffered(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
    }

    private func stopWatching() {
        check?.cancel()
        check = nil
    }
}
