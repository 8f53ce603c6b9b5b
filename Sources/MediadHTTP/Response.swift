import Foundation
import NIOCore
import NIOHTTP1

/// A response before it is written: status, headers and a body held in memory or sent from a file.
package struct Response {
    package enum Body {
        case empty
        case bytes(ByteBuffer)
        /// Sent with sendfile; `FileRegionCloser` closes the handle once written.
        case file(FileRegion)
        /// Written while it is made, chunked, and the connection closed after it.
        case stream(ResponseStream)
    }

    package var status: HTTPResponseStatus
    package var headers: HTTPHeaders
    package var body: Body

    package init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Bytes the body will hold, for `Content-Length` (0 for a stream, which has none).
    package var bodyLength: Int {
        switch body {
        case .empty, .stream: 0
        case .bytes(let buffer): buffer.readableBytes
        case .file(let region): region.readableBytes
        }
    }

    /// A JSON body made by `encoder`, with a final newline.
    package static func json<T: Encodable>(
        _ value: T, status: HTTPResponseStatus = .ok, encoder: JSONEncoder
    )
        -> Response
    {
        do {
            let data = try encoder.encode(value)
            return Response(
                status: status, headers: ["content-type": "application/json"],
                body: .bytes(ByteBuffer(bytes: data + [UInt8(ascii: "\n")])))
        } catch {
            return Response.error(
                ServiceError(.internalServerError, "internal_error", "encoding the response failed: \(error)"))
        }
    }

    /// Error bodies: sorted keys, `/` left as it is.
    private static var errorEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `{"error":{"code","message"}}` with the error's status and headers.
    package static func error(_ error: ServiceError) -> Response {
        struct Envelope: Encodable {
            struct Detail: Encodable {
                let code: String
                let message: String
            }
            let error: Detail
        }
        var response = json(
            Envelope(error: .init(code: error.code, message: error.message)), status: error.status,
            encoder: errorEncoder)
        for (name, value) in error.headers { response.headers.replaceOrAdd(name: name, value: value) }
        return response
    }

    /// A plain-text or other in-memory body.
    package static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: .ok, headers: ["content-type": contentType], body: .bytes(ByteBuffer(string: text)))
    }
}
