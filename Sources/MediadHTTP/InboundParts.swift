import NIOCore
import NIOHTTP1

/// The request parts arriving on one connection, read one at a time by that connection's task.
///
/// Reading is demand-driven: NIO stops reading the socket while parts are waiting here, so a slow disk
/// slows the client down instead of filling memory.
package final class InboundParts {
    private var iterator: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator

    package init(_ stream: NIOAsyncChannelInboundStream<HTTPServerRequestPart>) {
        iterator = stream.makeAsyncIterator()
    }

    package func next() async throws -> HTTPServerRequestPart? {
        try await iterator.next()
    }
}
