import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 client on NIO: one request per connection (`Connection: close`), over TLS for `https`
/// URLs (`ClientTLS`), bodies streamed from a file or sent from memory, responses collected (bounded) or
/// streamed to a sink. Used for webhook deliveries, URL inputs and output deliveries, and by `mediad submit`.
///
/// It never follows redirects: a 3xx is returned like any other status.
/// A request with a file body sends `Expect: 100-continue` and waits for the go-ahead, so a request the
/// server refuses from its head (401, 413, 415 …) gets its answer without the file being sent.
public struct HTTPClient: Sendable {
    /// What a request sends as its body.
    public enum Body: Sendable {
        case empty
        case bytes([UInt8])
        /// The file's bytes, read in 1 MiB chunks as the connection takes them.
        case file(String)
        /// The file's bytes from an offset on (a resumed upload), read the same way.
        case fileTail(String, from: Int64)
        /// `count` bytes of the file from `offset` (one part of a multipart upload), read the same way.
        case fileSlice(String, from: Int64, count: Int64)
    }

    /// A response: status, headers, and the body unless it went to a sink.
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: [UInt8]
    }

    /// A transport failure: the connection could not be made, broke, or took too long.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    private let group: any EventLoopGroup
    let threadPool: NIOThreadPool
    private let tls: ClientTLS

    /// `tls` defaults to the system's certificate authorities alone.
    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        threadPool: NIOThreadPool = .singleton, tls: ClientTLS? = nil
    ) throws {
        self.group = group
        self.threadPool = threadPool
        self.tls = try tls ?? ClientTLS()
    }

    /// Sends one request and reads the response. `timeout` bounds the whole exchange (nil: no bound);
    /// `idleTimeout`, when given, closes a connection on which no byte moved either way for that long;
    /// `connectTimeout` bounds the connection (at most 10 s and `timeout` by default). A collected body
    /// over `maxBody` bytes is a failure. With `sink`, body chunks go there instead, after `onHead` has
    /// seen the final status and headers (and may throw to stop there). `address`, when given, is
    /// connected to instead of resolving the URL's host (which is still sent as `Host`).
    public func send(
        _ method: HTTPMethod, _ url: HTTPURL, address: SocketAddress? = nil, headers: [(String, String)] = [],
        body: Body = .empty,
        timeout: TimeAmount? = .seconds(10), connectTimeout: TimeAmount? = nil, idleTimeout: TimeAmount? = nil,
        maxBody: Int = 16 << 20, onHead: (@Sendable (Int, HTTPHeaders) throws -> Void)? = nil,
        sink: (@Sendable (ByteBuffer) async throws -> Void)? = nil
    ) async throws -> Response {
        let channel: Connection
        let idled = TimeoutFlag()
        do {
            let bootstrap = ClientBootstrap(group: group)
                .connectTimeout(connectTimeout ?? min(timeout ?? .seconds(10), .seconds(10)))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
            let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { [tls] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let idleTimeout {
                        try channel.pipeline.syncOperations.addHandlers([
                            IdleStateHandler(allTimeout: idleTimeout), IdleCloser(flag: idled),
                        ])
                    }
                    if url.isSecure { try channel.pipeline.syncOperations.addHandler(try tls.handler(for: url)) }
                    try channel.pipeline.syncOperations.addHandlers([
                        HTTPRequestEncoder(),
                        ByteToMessageHandler(
                            HTTPResponseDecoder(
                                leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)),
                    ])
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
            if let address {
                channel = try await bootstrap.connect(to: address, channelInitializer: initializer)
            } else {
                channel = try await bootstrap.connect(host: url.host, port: url.port, channelInitializer: initializer)
            }
        } catch {
            throw Failure(message: "cannot connect to \(url.hostHeader): \(Self.reason(error))")
        }
        let timedOut = TimeoutFlag()
        let deadline = timeout.map { amount in
            channel.channel.eventLoop.scheduleTask(in: amount) {
                timedOut.set()
                channel.channel.close(promise: nil)
            }
        }
        defer { deadline?.cancel() }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                var head = HTTPRequestHead(version: .http1_1, method: method, uri: url.target)
                head.headers.add(name: "Host", value: url.hostHeader)
                head.headers.add(name: "Connection", value: "close")
                head.headers.add(name: "User-Agent", value: "mediad")
                for (name, value) in headers { head.headers.add(name: name, value: value) }
                let length: Int64? =
                    switch body {
                    case .empty: method == .GET || method == .DELETE ? nil : 0
                    case .bytes(let bytes): Int64(bytes.count)
                    case .file(let path): try await fileSize(path)
                    case .fileTail(let path, let offset): try await fileSize(path) - offset
                    case .fileSlice(let path, let offset, let count):
                        try await sliceLength(path, from: offset, count: count)
                    }
                if let length { head.headers.add(name: "Content-Length", value: String(length)) }
                let waitsToContinue =
                    switch body {
                    case .file, .fileTail, .fileSlice: (length ?? 0) > 0
                    case .empty, .bytes: false
                    }
                if waitsToContinue { head.headers.add(name: "Expect", value: "100-continue") }
                var parts = inbound.makeAsyncIterator()
                do {
                    try await outbound.write(.head(head))
                } catch {
                    // Refused on a connection that closed (a TLS handshake that failed, a reset): its inbound
                    // side ends with the reason.
                    while try await parts.next() != nil {}
                    throw error
                }
                var early: HTTPResponseHead? = nil
                if waitsToContinue {
                    guard case .head(let first) = try await parts.next() else {
                        throw Failure(message: "the server answered with no response head")
                    }
                    if first.status != .continue { early = first }
                }
                if early == nil {
                    do {
                        try await sendBody(body, outbound)
                        try await outbound.write(.end(nil))
                    } catch {
                        // A server may answer and close before taking the whole body: its answer wins, and its
                        // body goes where any other answer's would (to `sink` when given). A request without a
                        // body is complete once its head is out, so a quick server's answer and close can come
                        // before the end is written: that is this path too, not an edge of it. With no answer,
                        // a write refused because the connection closed gives the reason it closed.
                        do {
                            return try await readResponse(
                                &parts, early: nil, maxBody: maxBody, onHead: onHead, sink: sink)
                        } catch let reason {
                            throw (error as? ChannelError) == .ioOnClosedChannel ? reason : error
                        }
                    }
                }
                return try await readResponse(&parts, early: early, maxBody: maxBody, onHead: onHead, sink: sink)
            }
        } catch let error as Failure {
            if idled.isSet { throw Failure(message: "no data moved for \(timeoutText(idleTimeout))") }
            throw timedOut.isSet ? Failure(message: "timed out after \(timeoutText(timeout))") : error
        } catch {
            if idled.isSet { throw Failure(message: "no data moved for \(timeoutText(idleTimeout))") }
            if timedOut.isSet { throw Failure(message: "timed out after \(timeoutText(timeout))") }
            throw Failure(message: "\(url.hostHeader): \(tls.explain(error, for: url) ?? "\(error)")")
        }
    }

    private func sendBody(_ body: Body, _ outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>)
        async throws
    {
        switch body {
        case .empty: return
        case .bytes(let bytes): try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        case .file(let path): try await sendFile(path, from: 0, count: nil, outbound)
        case .fileTail(let path, let offset): try await sendFile(path, from: offset, count: nil, outbound)
        case .fileSlice(let path, let offset, let count): try await sendFile(path, from: offset, count: count, outbound)
        }
    }

    /// `count`, once the file is known to hold `count` bytes from `offset`: a file that does not is an error
    /// before the request is sent, not a body cut short that the server waits on.
    private func sliceLength(_ path: String, from offset: Int64, count: Int64) async throws -> Int64 {
        let size = try await fileSize(path)
        guard offset >= 0, count >= 0, offset + count <= size else {
            throw Failure(message: "\(path) has \(size) bytes, not \(count) from byte \(offset)")
        }
        return count
    }

    /// Sends the file's bytes from `offset`, `count` of them or to its end, in chunks of at most 1 MiB.
    private func sendFile(
        _ path: String, from offset: Int64, count: Int64?,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) async throws {
        let handle = try await threadPool.runIfActive {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            try handle.seek(toOffset: UInt64(offset))
            return handle
        }
        defer { try? handle.close() }
        var left = count ?? .max
        while left > 0 {
            let wanted = Int(min(left, 1 << 20))
            let chunk = try await threadPool.runIfActive { try handle.read(upToCount: wanted) ?? Data() }
            if chunk.isEmpty { break }
            left -= Int64(chunk.count)
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
        }
    }

    private func readResponse(
        _ parts: inout NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator, early: HTTPResponseHead?,
        maxBody: Int, onHead: (@Sendable (Int, HTTPHeaders) throws -> Void)?,
        sink: (@Sendable (ByteBuffer) async throws -> Void)?
    ) async throws -> Response {
        var head = early
        if let early { try onHead?(Int(early.status.code), early.headers) }
        var collected: [UInt8] = []
        while let part = try await parts.next() {
            switch part {
            case .head(let received) where received.status.code < 200:
                continue
            case .head(let received):
                head = received
                try onHead?(Int(received.status.code), received.headers)
            case .body(let chunk):
                if let sink {
                    try await sink(chunk)
                } else {
                    guard collected.count + chunk.readableBytes <= maxBody else {
                        throw Failure(message: "the response body is over \(maxBody) bytes")
                    }
                    collected += chunk.readableBytesView
                }
            case .end:
                guard let head else { throw Failure(message: "the response ended before its head") }
                return Response(status: Int(head.status.code), headers: head.headers, body: collected)
            }
        }
        throw Failure(message: "the connection closed before the response ended")
    }

    private func fileSize(_ path: String) async throws -> Int64 {
        try await threadPool.runIfActive {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    private func timeoutText(_ timeout: TimeAmount?) -> String {
        String(format: "%.1fs", Double(timeout?.nanoseconds ?? 0) / 1e9)
    }
}

/// Set once, from the event loop, when a request's deadline (or its idle timeout) closed its connection.
final class TimeoutFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
