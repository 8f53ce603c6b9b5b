import NIOCore
import NIOHTTP1
import Synchronization

/// Closes the file behind a `FileRegion` once the channel has written it (or failed to), and every file
/// a response meant to send when the channel closes before the write reached it.
///
/// Downloads are sent with `sendfile` by writing a `FileRegion`; the async channel writer does not say
/// when a write has finished, so this outbound handler, between that writer and the HTTP encoder, owns
/// closing the file descriptor. The writer also drops, without an error, a write that reaches the event
/// loop after the channel has closed: its `write` returned, yet no handler ever sees the region. So a
/// connection hands each file to `expect(_:)` before writing it, and what was expected but never passed
/// through here is closed when this handler is removed, with the channel. On the event loop no sendfile
/// can be under way then, so the close cannot be refused for a file in use.
package final class FileRegionCloser: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private struct State {
        var removed = false
        var expected: [ObjectIdentifier: NIOFileHandle] = [:]
    }
    private let state = Mutex(State())

    package init() {}

    /// Takes charge of `file`, about to be written to this handler's channel: it is closed once written,
    /// when the write fails, or when the channel closes without the write having reached it.
    package func expect(_ file: NIOFileHandle) {
        let closeNow = state.withLock { state in
            if state.removed { return true }
            state.expected[ObjectIdentifier(file)] = file
            return false
        }
        // The channel is gone: nothing will write the file, so nothing can be using it.
        if closeNow { try? file.close() }
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .body(.fileRegion(let region)) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // From here the write's promise answers for the file.
        state.withLock { _ = $0.expected.removeValue(forKey: ObjectIdentifier(region.fileHandle)) }
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenComplete { _ in try? region.fileHandle.close() }
        context.write(data, promise: written)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        let unwritten = state.withLock { state in
            state.removed = true
            defer { state.expected = [:] }
            return Array(state.expected.values)
        }
        for file in unwritten { try? file.close() }
    }
}
