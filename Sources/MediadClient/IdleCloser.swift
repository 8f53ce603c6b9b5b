import NIOCore

/// Closes a connection when `IdleStateHandler` says no byte moved for its timeout, and notes that it did,
/// so the request fails with "no data moved" rather than a bare closed connection.
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    private let flag: TimeoutFlag

    init(flag: TimeoutFlag) {
        self.flag = flag
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        flag.set()
        context.close(promise: nil)
    }
}
