import NIOCore
import NIOHTTP1

/// Closes a connection whose client stops taking a response: no byte of it leaves the server's buffer
/// for `timeout` (nginx's `send_timeout`).
///
/// A client that asks for a large output and never reads holds a connection, a descriptor and the file
/// (a deleted output stays on disk while it is open). While a response is under way this handler looks
/// at the channel's buffered bytes a few times per `timeout`: as long as the count moves or reaches zero,
/// the client is reading; when it stays put for `timeout`, the connection is closed. The bytes of a file
/// sent with sendfile count too, as NIO counts what it has not yet handed to the socket. Time in which the
/// server has nothing to send (a long poll waiting for its job) never counts.
///
/// Watching starts at a flush that leaves the response unfinished, or finished but not yet taken by the
/// socket: most answers (a job's JSON) reach the socket whole within their flush and never need the
/// check, which cost a timer set and cancelled per request.
package final class SendTimeout: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var check: Scheduled<Void>?
    /// From a response's final head until its end has been written.
    private var responding = false
    /// A response's end was written and has not been flushed yet.
    private var endUnflushed = false
    private var lastBuffered: Int = 0
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
        lastBuffered = 0
        lastProgress = .now()
        scheduleCheck(context, in: min(.seconds(1), .nanoseconds(max(1, timeout.nanoseconds / 4))))
    }

    private func scheduleCheck(_ context: ChannelHandlerContext, in interval: TimeAmount) {
        check = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            let buffered = Self.buffered(context)
            let now = NIODeadline.now()
            if buffered == 0 && !responding {
                check = nil
                return
            }
            if buffered == 0 || buffered != lastBuffered {
                lastBuffered = buffered
                lastProgress = now
            } else if now - lastProgress >= timeout {
                check = nil
                context.close(promise: nil)
                return
            }
            scheduleCheck(context, in: interval)
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
