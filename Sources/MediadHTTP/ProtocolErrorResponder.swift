import NIOCore
import NIOHTTP1

/// Answers requests the HTTP parser rejects, then lets the connection close: 431 for headers over the
/// parser's limit, 400 for everything else malformed — including `Content-Length` together with
/// `Transfer-Encoding` or two different lengths (request smuggling attempts).
///
/// A request answers once: when the parser fails inside a body that already has its response (a 413
/// sent from the head, then a malformed chunk), or while one is being written, nothing more is sent;
/// and once this handler has answered, the response `Connection` may still write for the same request
/// (its body read failed) is dropped.
package final class ProtocolErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let accessLog: AccessLog
    private var responseInProgress = false
    /// Between a request head and its end.
    private var requestOpen = false
    /// The open request has had a response (or the start of one).
    private var requestAnswered = false
    /// This handler sent the connection's last response.
    private var answeredError = false

    package init(accessLog: AccessLog) {
        self.accessLog = accessLog
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !responseInProgress && !(requestOpen && requestAnswered) && !answeredError {
            answeredError = true
            let (status, code, message): (HTTPResponseStatus, String, String) =
                switch parserError {
                case .headerOverflow:
                    (.requestHeaderFieldsTooLarge, "headers_too_large", "the request headers are over the size limit")
                case .unexpectedContentLength, .invalidContentLength:
                    (.badRequest, "invalid_request", "conflicting or invalid Content-Length / Transfer-Encoding")
                default:
                    (.badRequest, "invalid_request", "the request is not valid HTTP/1.1 (\(parserError))")
                }
            let body = ByteBuffer(string: "{\"error\":{\"code\":\"\(code)\",\"message\":\"\(message)\"}}\n")
            // The head could not be parsed, so there is no client id to echo: always a fresh one.
            let requestID = RequestID.generate()
            let headers = HTTPHeaders([
                ("connection", "close"), ("content-type", "application/json"),
                ("content-length", String(body.readableBytes)), (RequestID.header, requestID),
                ("date", HTTPDate.format()),
            ])
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            accessLog.record(
                AccessLog.Entry(
                    method: .RAW(value: "INVALID"), uri: "", route: nil, status: status, sent: body.readableBytes,
                    received: 0, duration: .zero, requestID: requestID))
        }
        context.fireErrorCaught(error)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestOpen = true
            requestAnswered = false
        case .end: requestOpen = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !answeredError else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            responseInProgress = true
            requestAnswered = true
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}
