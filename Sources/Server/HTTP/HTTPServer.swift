import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening socket: accepts connections and serves each on its own task.
///
/// Every connection runs NIO's HTTP/1.1 pipeline with pipelining assistance (responses leave in request
/// order), then `ProtocolErrorResponder` (malformed requests get 400 or 431 and a close),
/// `RequestDeadline` (slow or idle clients are cut off), `FileRegionCloser`, then the async channel that
/// `Connection` reads.
public final class HTTPServer: Sendable {
    private let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let responder: any Responder
    private let accessLog = AccessLog(logger: Logger(label: "mediad.http"))

    /// The port the server listens on (useful with port 0).
    public var localPort: Int { channel.channel.localAddress?.port ?? 0 }

    init(
        host: String, port: Int, group: any EventLoopGroup, responder: any Responder,
        headTimeout: TimeAmount = .seconds(30), bodyIdleTimeout: TimeAmount = .seconds(60)
    ) async throws {
        self.responder = responder
        let accessLog = accessLog
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false)
                    try channel.pipeline.syncOperations.addHandlers([
                        ProtocolErrorResponder(accessLog: accessLog),
                        RequestDeadline(headTimeout: headTimeout, bodyIdleTimeout: bodyIdleTimeout),
                        FileRegionCloser(),
                    ])
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Accepts connections until `stopAccepting()`; connections already open are served to their end.
    func run() async {
        let connection = Connection(responder: responder, accessLog: accessLog)
        try? await withThrowingDiscardingTaskGroup { group in
            try await channel.executeThenClose { connections in
                for try await client in connections {
                    group.addTask { await connection.serve(client) }
                }
            }
        }
    }

    /// Closes the listening socket: no new connections.
    func stopAccepting() async {
        try? await channel.channel.close()
    }
}
