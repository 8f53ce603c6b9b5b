import NIOCore
import NIOHTTP1

/// Answers requests the HTTP parser rejects, then lets the connection close: 431 for headers over the
/// parser's limit, 400 for everything else malformed — including `Content-Length` together with
/// `Transfer-Encoding` or two different lengths (request smuggling attempts).
///
/// Only a failure outside any request is answered (and logged) here. One inside a request whose head
/// has been parsed — a malformed chunk, or the client closing in the middle of the body — belongs to that
/// request: `Connection` reads it as the failure of the body, answers (unless it already has, e.g. a 404
/// or 413 decided from the head) and logs the request once, under its own method and route; this handler
/// then neither answers nor logs a second, phantom request. Once this handler has answered, whatever else
/// is written on the connection is dropped.
package final class ProtocolErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let accessLog: AccessLog
    private var responseInProgress = false
    /// Between a request head and its end.
    private var requestOpen = false
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
        if !responseInProgress && !requestOpen && !answeredError {
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
        case .head: requestOpen = true
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
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}
