import NIOCore
import NIOHTTP1

/// Serves the requests of one keep-alive connection, one after another (pipelined requests wait their
/// turn in NIO's pipelining handler), until the client closes or a response requires closing.
package struct Connection {
    package let responder: any Responder
    package let accessLog: AccessLog
    /// Where streamed responses register, so that shutdown can end them.
    package let streams: OpenStreams
    /// For a connection past `--max-connections`: the paths it may ask for, once (any other request gets
    /// 503 `server_busy`, and the connection closes after the answer); nil for a connection under the cap.
    package var monitoringPaths: Set<String>? = nil
    /// Longest request target (path and query) accepted; longer ones get 414.
    package static let maxTargetLength = 8192
    /// Most of an unread body read and dropped to keep the connection for the next request.
    package static let drainLimit: Int64 = 1 << 20
    /// How long a closing connection goes on reading (and dropping) what the client sends.
    package static let lingering = TimeAmount.seconds(2)

    /// Serves `channel` to its end; `files` is its pipeline's closer, which takes charge of every file sent.
    package func serve(
        _ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, files: FileRegionCloser
    ) async {
        let clientAddress = channel.channel.remoteAddress?.ipAddress
        try? await channel.executeThenClose { inbound, outbound in
            let parts = InboundParts(inbound)
            while let part = try await parts.next() {
                guard case .head(let head) = part else { continue }
                let keepOpen = try await serve(
                    head, from: clientAddress, parts: parts, outbound: outbound, files: files,
                    closed: channel.channel.closeFuture)
                if !keepOpen {
                    // `executeThenClose` closes at once, dropping bytes the socket has not taken yet (a large
                    // download to a slow client); a half-close first completes only once they are written.
                    try? await channel.channel.close(mode: .output).get()
                    // Then what the client still sends is read and dropped for a moment (a lingering close):
                    // closing with unread input resets the connection, and a reset can destroy the response
                    // before the client has read it (a 413 for a body it is still sending).
                    let closer = channel.channel.eventLoop.scheduleTask(in: Self.lingering) {
                        channel.channel.close(promise: nil)
                    }
                    while (try? await parts.next()) != nil {}
                    closer.cancel()
                    return
                }
            }
        }
    }

    /// Answers one request; returns whether the connection can carry another.
    private func serve(
        _ head: HTTPRequestHead, from clientAddress: String?, parts: InboundParts,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, files: FileRegionCloser,
        closed: EventLoopFuture<Void>
    ) async throws -> Bool {
        let started = ContinuousClock.now
        let requestID = RequestID.resolve(head.headers.first(name: RequestID.header))
        var route: String?
        let chunked = head.headers["transfer-encoding"].contains { $0.lowercased().contains("chunked") }
        let declaredLength = head.headers.first(name: "content-length")
        // NIO's parser takes any length that fits 64 unsigned bits; one past Int64 is refused here.
        let length = declaredLength.map { Int64($0) ?? Int64.max } ?? 0
        let body = RequestBody(source: parts, expectsBody: chunked || length > 0)
        let expectsContinue = head.headers["expect"].contains { $0.lowercased() == "100-continue" }
        if expectsContinue {
            body.beforeFirstRead = {
                try await outbound.write(.head(HTTPResponseHead(version: head.version, status: .continue)))
            }
        }
        var response: Response
        do {
            guard head.uri.utf8.count <= Self.maxTargetLength else {
                throw ServiceError(
                    .uriTooLong, "uri_too_long", "the request target is over \(Self.maxTargetLength) bytes")
            }
            guard length < Int64.max else {
                throw ServiceError(
                    .payloadTooLarge, "payload_too_large", "the Content-Length \(declaredLength ?? "") is too large")
            }
            let request = try Request(head: head, body: body)
            request.clientAddress = clientAddress
            if let monitoringPaths, !Self.asksFor(monitoringPaths, head, path: request.path) {
                throw ServiceError(
                    .serviceUnavailable, "server_busy",
                    "the server is serving as many connections as it may; retry later", headers: [("Retry-After", "1")])
            }
            response = await responder.respond(to: request)
            route = request.route
        } catch let error as ServiceError {
            response = .error(error)
        }
        var keepOpen = head.isKeepAlive && monitoringPaths == nil
        if !body.finished {
            // A body the handler did not read: drain a little of it, else close rather than read gigabytes
            // (or wait for them: a chunked body, or one declared longer than that, is not drained). If 100-continue
            // was never sent, the client may be waiting to send it: close as well. A read that fails closes
            // too; the response is still attempted, so a file it holds reaches its closer.
            if body.beforeFirstRead != nil || chunked || length - body.received > Self.drainLimit {
                keepOpen = false
            } else if (try? await body.discard(limit: Self.drainLimit)) != true {
                keepOpen = false
            }
        }
        // A stream ends only when its producer returns: nothing can follow it on this connection.
        if case .stream = response.body { keepOpen = false }
        response.headers.replaceOrAdd(name: RequestID.header, value: requestID)
        ResponseCompression.apply(to: &response, acceptEncoding: head.headers["accept-encoding"])
        var streamed = 0
        defer {
            let sent = head.method == .HEAD || response.status == .notModified ? 0 : response.bodyLength + streamed
            accessLog.record(
                AccessLog.Entry(
                    method: head.method, uri: head.uri, route: route, status: response.status, sent: sent,
                    received: body.received, duration: ContinuousClock.now - started, requestID: requestID))
        }
        let abandoned: Bool
        (streamed, abandoned) = try await write(
            response, for: head, keepOpen: keepOpen, to: outbound, files: files, closed: closed)
        // Closing at once, without the last chunk, tells the client the body is incomplete.
        if abandoned { throw StreamAbandoned() }
        return keepOpen
    }

    /// Whether a request is a `GET` or `HEAD` of one of `paths`.
    private static func asksFor(_ paths: Set<String>, _ head: HTTPRequestHead, path: String) -> Bool {
        (head.method == .GET || head.method == .HEAD) && paths.contains(path)
    }

    /// Thrown to close a connection whose streamed body its producer abandoned (`StreamWriter.abandon`).
    private struct StreamAbandoned: Error {}

    /// Writes the response; returns the bytes of a streamed body (the others' length is known before) and
    /// whether its producer abandoned it (then its last chunk is not sent).
    ///
    /// A response whose body is at hand goes out as one write of its head, body and end: one hop to the
    /// event loop and one flush (a `writev`) rather than one of each per part.
    private func write(
        _ response: Response, for request: HTTPRequestHead, keepOpen: Bool,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, files: FileRegionCloser,
        closed: EventLoopFuture<Void>
    ) async throws -> (streamed: Int, abandoned: Bool) {
        let head = HTTPServerResponsePart.head(Self.head(of: response, version: request.version, keepOpen: keepOpen))
        var streamed = 0
        var abandoned = false
        switch response.body {
        case .empty,
            .bytes where request.method == .HEAD,
            .stream where request.method == .HEAD:
            try await outbound.write(contentsOf: [head, .end(nil)])
        case .bytes(let buffer):
            try await outbound.write(contentsOf: [head, .body(.byteBuffer(buffer)), .end(nil)])
        case .file(let region) where request.method != .HEAD:
            files.expect(region.fileHandle)
            try await outbound.write(contentsOf: [head, .body(.fileRegion(region)), .end(nil)])
        case .file(let region):
            try? region.fileHandle.close()
            try await outbound.write(contentsOf: [head, .end(nil)])
        case .stream(let stream):
            try await outbound.write(head)
            (streamed, abandoned) = await produce(stream, to: outbound, closed: closed)
            if !abandoned { try await outbound.write(.end(nil)) }
        }
        return (streamed, abandoned)
    }

    /// The head a response goes out with: its fields, then `Content-Length` (not for 204 and 304, which
    /// carry no body and no length of one — a 304 describes the full representation — nor for a stream,
    /// which NIO's encoder sends chunked), `Connection: close` when nothing may follow it, and `Date`.
    package static func head(of response: Response, version: HTTPVersion, keepOpen: Bool) -> HTTPResponseHead {
        var headers = response.headers
        if case .stream = response.body {
            headers.remove(name: "content-length")
        } else if response.status != .noContent && response.status != .notModified {
            headers.replaceOrAdd(name: "content-length", value: String(response.bodyLength))
        }
        if !keepOpen { headers.replaceOrAdd(name: "connection", value: "close") }
        headers.replaceOrAdd(name: "date", value: HTTPDate.now())
        return HTTPResponseHead(version: version, status: response.status, headers: headers)
    }

    /// Runs a stream's producer until it returns, told to stop when the connection closes or the server
    /// shuts down; returns the bytes it wrote and whether it abandoned the body. The stream stays registered until its connection has
    /// closed, so that shutdown waits for its last chunk to be sent rather than cut it.
    private func produce(
        _ stream: ResponseStream, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        closed: EventLoopFuture<Void>
    ) async -> (Int, Bool) {
        let end = StreamEnd()
        let key = streams.add(end)
        closed.whenComplete { [streams] _ in
            end.fire()
            streams.remove(key)
        }
        let writer = StreamWriter(outbound, end: end)
        await stream.produce(writer)
        return (writer.bytesSent, writer.isAbandoned)
    }
}
