import NIOCore

/// The whole pipeline of a connection past `--max-connections` and its reserve for monitoring paths:
/// answers 503 `server_busy` with `Retry-After` at once, without waiting for or parsing a request, and
/// closes.
///
/// The answer goes out before the request is read, so a client that has sent one still finds it; the
/// output side is shut first and what the client sends meanwhile is read and dropped for a moment, as
/// closing a socket with unread input would reset it and could destroy the answer on its way.
package final class OverCapacityResponder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer

    private static let lingering = TimeAmount.seconds(1)
    private var answered = false

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        answer(context)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { context.close(promise: nil) }
    }

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body =
            #"{"error":{"code":"server_busy","message":"the server is serving as many connections as it may; retry later"}}"#
            + "\n"
        let response =
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
            + "connection: close\r\n\(RequestID.header): \(RequestID.generate())\r\ndate: \(HTTPDate.format())\r\n"
            + "content-length: \(body.utf8.count)\r\n\r\n\(body)"
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(ByteBuffer(string: response)), promise: sent)
        sent.futureResult.assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingering) { context.close(promise: nil) }
        }
    }
}
