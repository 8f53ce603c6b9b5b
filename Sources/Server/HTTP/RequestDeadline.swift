import NIOCore
import NIOHTTP1

/// Closes connections that hold the server without sending requests.
///
/// A complete request head must arrive within `headTimeout` of the connection opening or of the previous
/// response ending (slowloris clients trickling a byte a second are cut off), and a request body that
/// stops arriving for `bodyIdleTimeout` is abandoned. Waiting for a response — a long poll — is not idle
/// time, nor is sending one: the deadlines run only while the server waits for the client to send.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let bodyIdleTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Request heads seen on this connection.
    private var requestsRead = 0

    init(headTimeout: TimeAmount, bodyIdleTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, headTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsRead += 1
            arm(context, bodyIdleTimeout)
        case .body:
            arm(context, bodyIdleTimeout)
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
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
            if requestsRead == requestsSoFar { arm(context, headTimeout) }
        }
        context.write(data, promise: written)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }
}
