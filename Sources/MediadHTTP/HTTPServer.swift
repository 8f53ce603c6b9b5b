import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The listening socket: accepts connections and serves each on its own task.
///
/// Every connection runs NIO's HTTP/1.1 pipeline with pipelining assistance (responses leave in request
/// order), then `ProtocolErrorResponder` (malformed requests get 400 or 431 and a close),
/// `RequestDeadline` (slow or idle clients are cut off), `SendTimeout` (clients that stop reading are cut
/// off), `FileRegionCloser`, `ImmediateAnswers` (what can be answered from memory is, on the event loop),
/// then the async channel that `Connection` reads. Connections past `limits.maxConnections` are served
/// one request for a monitoring path each, up to `ConnectionLimit.monitoringReserve` of them, without
/// `ImmediateAnswers` and with a head timeout of at most `monitoringHeadTimeout`; past that they get
/// `OverCapacityResponder` alone.
public final class HTTPServer: Sendable {
    /// What bounds the clients of one server.
    package struct Limits: Sendable {
        var headTimeout: TimeAmount
        var bodyIdleTimeout: TimeAmount
        var sendTimeout: TimeAmount
        /// Bytes a second a request body must average while the server waits for it; 0: no minimum.
        var minimumUploadRate: Int64
        package var maxConnections: Int
        /// The paths (`/healthz`) that connections past `maxConnections` may still ask for, with `GET` or
        /// `HEAD`: what monitoring needs, so that a busy server is not taken for a dead one.
        var monitoringPaths: Set<String>

        package init(
            headTimeout: TimeAmount = .seconds(30), bodyIdleTimeout: TimeAmount = .seconds(60),
            sendTimeout: TimeAmount = .seconds(60), minimumUploadRate: Int64 = 1024, maxConnections: Int = 1024,
            monitoringPaths: Set<String> = []
        ) {
            self.headTimeout = headTimeout
            self.bodyIdleTimeout = bodyIdleTimeout
            self.sendTimeout = sendTimeout
            self.minimumUploadRate = minimumUploadRate
            self.maxConnections = maxConnections
            self.monitoringPaths = monitoringPaths
        }
    }

    /// The longest a connection past the cap may take to send its request head: a monitoring probe sends
    /// it at once, and a client that holds such a place idle keeps it from the next probe.
    static let monitoringHeadTimeout = TimeAmount.seconds(5)

    private typealias Client = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    /// A connection taken, and whether it may ask for monitoring paths alone.
    private struct Accepted: Sendable {
        var client: Client
        var monitoringOnly: Bool
        var files: FileRegionCloser
    }

    private let channel: NIOAsyncChannel<Accepted?, Never>
    private let monitoringPaths: Set<String>
    private let responder: any Responder
    private let accessLog: AccessLog
    package let connections: ConnectionLimit
    /// Streamed responses under way, ended when the server stops accepting.
    private let streams = OpenStreams()

    /// The port the server listens on (useful with port 0).
    public var localPort: Int { channel.channel.localAddress?.port ?? 0 }

    /// Read buffers sized to what the socket had, from 2 KiB up to 256 KiB. NIO's default stops at
    /// 64 KiB, which made the event loop's share of an upload 0.45 CPU-s a GB (the channel's work per
    /// read, not the copy); 256 KiB reads take a third of that, and 1 MiB ones did no better. A
    /// connection's buffer grows only while its reads fill it, and shrinks again.
    static let readBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 << 10)

    /// A server answering with `responder`; each answered request is recorded in `accessLog` (by
    /// default lines through a `Logger` labelled `mediad.http`).
    package init(
        host: String, port: Int, group: any EventLoopGroup, responder: any Responder, limits: Limits = Limits(),
        accessLog: AccessLog = AccessLog(logger: Logger(label: "mediad.http"))
    )
        async throws
    {
        self.responder = responder
        self.accessLog = accessLog
        monitoringPaths = limits.monitoringPaths
        let accessLog = accessLog
        let connections = ConnectionLimit(maximum: limits.maxConnections)
        let trimmer = HeapTrimmer()
        self.connections = connections
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelOption(.recvAllocator, value: Self.readBuffers)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let admission = connections.admit(channel)
                    if admission == .refused {
                        try channel.pipeline.syncOperations.addHandler(OverCapacityResponder())
                        return nil
                    }
                    let monitoringOnly = admission == .monitoringOnly
                    channel.closeFuture.whenComplete { _ in trimmer.connectionClosed() }
                    let files = FileRegionCloser()
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false)
                    try channel.pipeline.syncOperations.addHandlers([
                        ProtocolErrorResponder(accessLog: accessLog),
                        RequestDeadline(
                            headTimeout: monitoringOnly
                                ? min(limits.headTimeout, Self.monitoringHeadTimeout) : limits.headTimeout,
                            bodyIdleTimeout: limits.bodyIdleTimeout, minimumUploadRate: limits.minimumUploadRate),
                        SendTimeout(timeout: limits.sendTimeout),
                        files,
                    ])
                    if !monitoringOnly {
                        try channel.pipeline.syncOperations.addHandler(
                            ImmediateAnswers(responder: responder, accessLog: accessLog))
                    }
                    return Accepted(
                        client: try Client(wrappingChannelSynchronously: channel), monitoringOnly: monitoringOnly,
                        files: files)
                }
            }
    }

    /// Accepts connections until `stopAccepting()`; connections already open are served to their end, or
    /// until the calling task is cancelled, which closes them.
    package func serve() async {
        let connection = Connection(responder: responder, accessLog: accessLog, streams: streams)
        let monitoring = Connection(
            responder: responder, accessLog: accessLog, streams: streams, monitoringPaths: monitoringPaths)
        try? await withThrowingDiscardingTaskGroup { group in
            try await channel.executeThenClose { clients in
                for try await accepted in clients {
                    guard let accepted else { continue }
                    let serving = accepted.monitoringOnly ? monitoring : connection
                    group.addTask { await serving.serve(accepted.client, files: accepted.files) }
                }
            }
        }
    }

    /// Closes the listening socket: no new connections; streamed responses (event streams) end now,
    /// cleanly, rather than be cut when the connections close at the end of the shutdown.
    package func stopAccepting() async {
        streams.stopAll()
        try? await channel.channel.close()
    }
}

extension HTTPServer: Service {
    /// Serves connections for the whole life of the group. The first service, so the last a graceful
    /// shutdown reaches: `ListenerService` stopped accepting long before and the jobs have been drained,
    /// while open connections (long polls among them) were still answered; now they are closed.
    ///
    /// Event streams were told to end when the listener closed; on a quick shutdown (no job to drain)
    /// one may still be sending its last chunk, so the connections close once every stream's has, or
    /// after `streamEndGrace`.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            // Serving ends early when the listener has closed and no connection is open: wait for this
            // service's turn all the same, as the group takes an early end for a failure.
            group.addTask { await self.serve() }
            try? await gracefulShutdown()
            await streams.closed(within: Self.streamEndGrace)
            group.cancelAll()
        }
    }

    /// The longest shutdown waits for ended event streams to reach their clients.
    static let streamEndGrace = Duration.seconds(5)
}
