import NIOCore
import NIOHTTP1

/// Answers on the event loop the requests the responder can answer at once from memory (a job polled
/// for its state), without the hop to the connection's task and back; every other request passes on to
/// that task untouched.
///
/// Under a status poll load the hops were most of a request's cost: the event loop woke the task, the
/// task woke the event loop for each part of the answer. A request is taken here only when nothing
/// about it needs the full path: a `GET` without a body or `Expect`, kept alive, with no conditional
/// field and no repeated singleton field, whose answer is not to be compressed (gzip is CPU work left to
/// the task). Its answer gets what `Connection` gives every answer (request id, `Vary`, length, `Date`)
/// and is logged and counted the same way. NIO's pipelining handler, nearer the socket, hands over one
/// request at a time, so answers made here and by the task never overtake each other.
package final class ImmediateAnswers: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    /// A request taken here, answered when its end arrives.
    private struct Taken {
        var head: HTTPRequestHead
        var response: Response
        var route: String
        var requestID: String
        var started: ContinuousClock.Instant
    }

    private let responder: any Responder
    private let accessLog: AccessLog
    private var taken: Taken?

    /// Fields that make a `GET` conditional (RFC 9110 §13.1): evaluated on the full path.
    private static let conditionalFields = [
        "if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "if-range",
    ]

    package init(responder: any Responder, accessLog: AccessLog) {
        self.responder = responder
        self.accessLog = accessLog
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let started = ContinuousClock.now
            guard Self.mayTake(head), let immediate = responder.immediateResponse(to: head),
                !ResponseCompression.compresses(immediate.response, acceptEncoding: head.headers["accept-encoding"])
            else {
                context.fireChannelRead(data)
                return
            }
            let requestID = RequestID.resolve(head.headers.first(name: RequestID.header))
            taken = Taken(
                head: head, response: immediate.response, route: immediate.route, requestID: requestID,
                started: started)
        case .body:
            if taken == nil { context.fireChannelRead(data) }
        case .end:
            guard let request = taken else {
                context.fireChannelRead(data)
                return
            }
            taken = nil
            answer(request, context)
        }
    }

    /// Whether nothing in the head itself needs the connection's task.
    private static func mayTake(_ head: HTTPRequestHead) -> Bool {
        guard head.method == .GET, head.isKeepAlive, head.uri.utf8.count <= Connection.maxTargetLength else {
            return false
        }
        let headers = head.headers
        guard !headers.contains(name: "transfer-encoding"), !headers.contains(name: "expect"),
            headers.first(name: "content-length").map({ $0 == "0" }) ?? true
        else { return false }
        return !conditionalFields.contains { headers.contains(name: $0) }
            && !Request.singletonFields.contains { headers[$0].count > 1 }
    }

    /// Logs the request, then writes its answer in one flush. Logged first because writing the end lets the
    /// pipelining handler hand over the next request at once, whose line would otherwise come first.
    private func answer(_ request: Taken, _ context: ChannelHandlerContext) {
        var response = request.response
        response.headers.replaceOrAdd(name: RequestID.header, value: request.requestID)
        ResponseCompression.apply(to: &response, acceptEncoding: request.head.headers["accept-encoding"])
        let head = Connection.head(of: response, version: request.head.version, keepOpen: true)
        accessLog.record(
            AccessLog.Entry(
                method: request.head.method, uri: request.head.uri, route: request.route, status: response.status,
                sent: response.bodyLength, received: 0, duration: ContinuousClock.now - request.started,
                requestID: request.requestID))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if case .bytes(let buffer) = response.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
