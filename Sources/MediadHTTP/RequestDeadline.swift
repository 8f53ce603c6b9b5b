import NIOCore
import NIOHTTP1

/// Closes connections that hold the server without sending requests.
///
/// A complete request head must arrive within `headTimeout` of the connection opening or of the previous
/// response ending (slowloris clients trickling a byte a second are cut off). While a body is read, only
/// time spent waiting on the client counts — from the server asking the socket for more until bytes
/// arrive, never the time the server itself takes to write what it has: one wait longer than
/// `bodyIdleTimeout` closes the connection, and so does a body slower than `UploadPace` allows. Waiting
/// for a response — a long poll — is not idle time, nor is sending one (`SendTimeout` watches that).
package final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let bodyIdleTimeout: TimeAmount
    private var pace: UploadPace
    private var deadline: Scheduled<Void>?
    /// Request heads seen on this connection.
    private var requestsRead = 0
    /// Between a request head and its end.
    private var inBody = false
    /// When the server last asked for more of a body and has not had it yet.
    private var waitingSince: NIODeadline?

    package init(headTimeout: TimeAmount, bodyIdleTimeout: TimeAmount, minimumUploadRate: Int64) {
        self.headTimeout = headTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        pace = UploadPace(minimumRate: minimumUploadRate)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headTimeout) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        arm(context, headTimeout)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        disarm()
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
            requestsRead += 1
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
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The response is done once the socket has taken its last byte: then wait for the next request.
        // Arming earlier would cut off a download still on its way to a slow client. A pipelined request
        // read meanwhile (NIO's pipelining handler, nearer the socket, delivers it just after this write)
        // is being served, so it is left unarmed.
        let written = promise ?? context.eventLoop.makePromise()
        let requestsSoFar = requestsRead
        written.futureResult.assumeIsolated().whenSuccess { [self] _ in
            if requestsRead == requestsSoFar && !inBody { arm(context, headTimeout) }
        }
        context.write(data, promise: written)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
        waitingSince = nil
    }
}
