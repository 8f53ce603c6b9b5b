import NIOCore
import NIOHTTP1

/// gzip for text bodies held in memory (JSON, job logs, the spec, metrics) when the client accepts it.
///
/// Files (downloads, sent with sendfile and served with `Range` and `ETag`) are never compressed, nor are
/// partial, empty or tiny bodies, or a response that already names an encoding or carries an `ETag` —
/// an entity tag belongs to one representation, so compressing would make it lie. Every response that
/// could have been compressed says `Vary: Accept-Encoding`, so caches keep the two forms apart.
package enum ResponseCompression {
    /// Bodies smaller than this are sent as they are: gzip would save little or even add bytes.
    package static let minimumSize = 1024

    package static func apply(to response: inout Response, acceptEncoding: [String]) {
        guard case .bytes(let buffer) = response.body, isCompressible(response) else { return }
        response.headers.add(name: "vary", value: "Accept-Encoding")
        guard compresses(response, acceptEncoding: acceptEncoding),
            let compressed = Gzip.compress(Array(buffer.readableBytesView))
        else { return }
        response.headers.replaceOrAdd(name: "content-encoding", value: "gzip")
        response.body = .bytes(ByteBuffer(bytes: compressed))
    }

    /// Whether `apply` would gzip the body: CPU work that `ImmediateAnswers` leaves to the connection's task.
    package static func compresses(_ response: Response, acceptEncoding: [String]) -> Bool {
        guard case .bytes(let buffer) = response.body else { return false }
        return buffer.readableBytes >= minimumSize && AcceptEncoding.acceptsGzip(acceptEncoding)
            && isCompressible(response)
    }

    private static func isCompressible(_ response: Response) -> Bool {
        guard response.status != .partialContent, response.status != .notModified,
            !response.headers.contains(name: "content-encoding"), !response.headers.contains(name: "etag"),
            let type = response.headers.first(name: "content-type")?.lowercased()
        else { return false }
        return type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("application/yaml")
    }
}
