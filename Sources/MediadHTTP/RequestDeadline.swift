import MediadFoundation
import NIOCore
import NIOHTTP1

/// Closes connections that hold the server without sending requests.
///
/// A complete request head must arrive within `headTimeout` of the connection opening or of the server
/// writing the previous response, a time extended while that response is still in the channel's buffer
/// (what already sits in the kernel's socket buffers, a few megabytes, is the client's to take in time).
/// Slowloris clients trickling a byte a second are cut off. While a body is read, only time spent waiting
/// on the client counts — from the server asking the socket for more until bytes arrive, never the time
/// the server itself takes to write what it has: one wait longer than `bodyIdleTimeout` closes the
/// connection, and so does a body slower than `TransferPace` allows. Waiting for a response — a long poll —
/// is not idle time, nor is sending one (`SendTimeout` watches that).
package final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let bodyIdleTimeout: TimeAmount
    private var pace: TransferPace
    /// When the connection is closed unless a disarm comes first; nil: no deadline.
    private var deadline: NIODeadline?
    /// The one timer that enforces `deadline`, and when it fires. A deadline moved later leaves it be: it
    /// looks again when it fires, so a kept-alive connection does not set and cancel a timer per request.
    private var timer: Scheduled<Void>?
    private var timerFiresAt: NIODeadline?
    /// Between a request head and its end.
    private var inBody = false
    /// When the server last asked for more of a body and has not had it yet.
    private var waitingSince: NIODeadline?

    package init(headTimeout: TimeAmount, bodyIdleTimeout: TimeAmount, minimumUploadRate: Int64) {
        self.headTimeout = headTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        pace = TransferPace(minimumRate: minimumUploadRate)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headTimeout) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        arm(context, headTimeout)
        context.fireChannelActive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        cancelTimer()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        disarm()
        cancelTimer()
        context.fireChannelInactive()
    }

    package func read(context: ChannelHandlerContext) {
        if inBody && waitingSince == nil {
            waitingSince = .now()
            arm(context, bodyIdleTimeout)
        }
        context.read()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inBody = true
            pace.reset()
            disarm()
        case .body(let bytes):
            let wait = waitingSince.map { NIODeadline.now() - $0 } ?? .zero
            disarm()
            guard pace.record(bytes.readableBytes, after: wait) else {
                context.close(promise: nil)
                return
            }
        case .end:
            inBody = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A response written in full starts the wait for the next request's head. A pipelined request read
        // meanwhile (NIO's pipelining handler, nearer the socket, delivers it just after this write)
        // disarms it again; a response sent before its request's body has arrived leaves the body's
        // timeout in charge. The bytes may still be on their way to a slow client: the timer gives them
        // time (see `expire`), and `SendTimeout` watches that they move.
        if case .end = unwrapOutboundIn(data), !inBody { arm(context, headTimeout) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        let due = NIODeadline.now() + timeout
        deadline = due
        if let firesAt = timerFiresAt, firesAt <= due { return }
        schedule(context, at: due)
    }

    private func schedule(_ context: ChannelHandlerContext, at due: NIODeadline) {
        timer?.cancel()
        timerFiresAt = due
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            timer = nil
            timerFiresAt = nil
            expire(context)
        }
    }

    /// The timer fired: closes the connection if its deadline has passed, else waits for the deadline.
    /// A head deadline that passes while the last response is still in the channel's buffer is moved on:
    /// the client is still being sent to, which is not idling.
    private func expire(_ context: ChannelHandlerContext) {
        guard let due = deadline else { return }
        let now = NIODeadline.now()
        guard now >= due else { return schedule(context, at: due) }
        if !inBody, let buffered = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes), buffered > 0 {
            arm(context, headTimeout)
            return
        }
        context.close(promise: nil)
    }

    private func disarm() {
        deadline = nil
        waitingSince = nil
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerFiresAt = nil
    }
}
