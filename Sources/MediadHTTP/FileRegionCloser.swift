import NIOCore
import NIOHTTP1

/// Closes the file behind a `FileRegion` once the channel has written it (or failed to).
///
/// Downloads are sent with `sendfile` by writing a `FileRegion`; the async channel writer does not say
/// when a write has finished, so this outbound handler, between that writer and the HTTP encoder, owns
/// closing the file descriptor.
package final class FileRegionCloser: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .body(.fileRegion(let region)) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenComplete { _ in try? region.fileHandle.close() }
        context.write(data, promise: written)
    }
}
