import NIOCore
import NIOHTTP1

/// Closes connections that hold the server without sending requests.
///
/// A complete request head must arrive within `headTimeout` of the connection opening or of the previous
/// response ending (slowloris clients trickling a byte a second are cut off), and a request body that
/// stops arriving for `bodyIdleTimeout` is abandoned. Waiting for a response — a long poll — is not idle
/// time: the deadlines run only while the server waits for the client.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private let bodyIdleTimeout: TimeAmount
    private var deadline: Scheduled<Void>?

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
        case .head, .body: arm(context, bodyIdleTimeout)
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The response is done: wait for the next request. A pipelined one already read is delivered
        // (by NIO's pipelining handler, nearer the socket) just after this write and disarms it again.
        if case .end = unwrapOutboundIn(data) { arm(context, headTimeout) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }
}
