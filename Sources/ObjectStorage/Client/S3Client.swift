import Foundation
import Logging
import MediadClient
import NIOCore
import NIOHTTP1

/// A client of one S3-compatible location (`S3Location`): single objects up, down, inspected and removed,
/// multipart uploads for large ones (`S3Client+Multipart`), and presigned GET URLs for handing an object to
/// someone without keys.
///
/// Every request is signed with `SigV4Signer` over `HTTPClient`, one connection per request, and retried
/// by `retry` within its retry window when the store or the network failed (`S3Error.isRetryable`), never
/// when it refused. Keys are
/// relative to the location's prefix and checked so that none leaves it.
public struct S3Client: Sendable {
    public let location: S3Location
    public let signer: SigV4Signer
    public let http: HTTPClient
    public var retry: S3RetryPolicy
    /// A request on which no byte moved either way for this long is abandoned (and retried within its
    /// window): a store that takes connections but answers nothing costs an attempt this long.
    public var idleTimeout: TimeAmount
    /// Whether the store answered this client's (and its copies') last request.
    public let reachability = StoreReachability()
    /// Where a request's first retry and its success after retries are told (nil: nowhere), so an operator
    /// sees an outage being ridden out.
    public var logger: Logger?

    /// What a HEAD, or the head of a GET, says about an object.
    public struct ObjectInfo: Sendable, Equatable {
        /// The body's length in bytes (of the range, for a ranged GET).
        public var size: Int64
        /// The ETag as sent, quotes included.
        public var etag: String
        public var contentType: String?

        public init(size: Int64, etag: String, contentType: String?) {
            self.size = size
            self.etag = etag
            self.contentType = contentType
        }
    }

    public init(
        location: S3Location, credentials: SigningCredentials, http: HTTPClient, retry: S3RetryPolicy = .init(),
        idleTimeout: TimeAmount = .seconds(60), logger: Logger? = nil
    ) {
        self.location = location
        self.logger = logger
        self.signer = SigV4Signer(credentials: credentials, region: location.region)
        self.http = http
        self.retry = retry
        self.idleTimeout = idleTimeout
    }

    /// Stores `body` as `key` and returns its ETag. With `sha256Hex` (the body's SHA-256, lowercase hex)
    /// the store checks the body against it twice (`x-amz-content-sha256` and `x-amz-checksum-sha256`);
    /// without it, the payload is not signed (`UNSIGNED-PAYLOAD`), so a file streams without a first pass.
    @discardableResult
    public func putObject(_ key: String, body: HTTPClient.Body, contentType: String? = nil, sha256Hex: String? = nil)
        async throws -> String
    {
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if let sha256Hex { headers.append(("x-amz-checksum-sha256", try Self.base64(ofHex: sha256Hex))) }
        let response = try await send(
            Request(
                method: .PUT, key: try location.objectKey(key), headers: headers, body: body,
                payloadHash: sha256Hex ?? SigV4Signer.unsignedPayload, operation: "PUT \(key)"))
        return response.headers.first(name: "ETag") ?? ""
    }

    /// The object's bytes (those of `range` when given, both ends included), at most `maxBody` of them:
    /// a larger object is an `S3Error` (`ResponseTooLarge`) rather than memory spent.
    public func getObject(_ key: String, range: ClosedRange<Int64>? = nil, maxBody: Int = 16 << 20) async throws
        -> [UInt8]
    {
        try await send(getRequest(key, range: range), maxBody: maxBody).body
    }

    /// Streams the object (or `range` of it) to `sink` chunk by chunk, after the store accepted the request,
    /// and returns what its head said. A retry happens only before the first chunk reached `sink`.
    @discardableResult
    public func getObject(
        _ key: String, range: ClosedRange<Int64>? = nil, sink: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws -> ObjectInfo {
        Self.info(try await send(getRequest(key, range: range), sink: sink).headers)
    }

    /// What the store says about `key`, or nil when there is no such object.
    public func headObject(_ key: String) async throws -> ObjectInfo? {
        let response = try await send(
            Request(method: .HEAD, key: try location.objectKey(key), operation: "HEAD \(key)"), accepting: [404])
        return response.status == 404 ? nil : Self.info(response.headers)
    }

    /// Removes `key`; removing a key that does not exist succeeds, as in S3.
    public func deleteObject(_ key: String) async throws {
        _ = try await send(Request(method: .DELETE, key: try location.objectKey(key), operation: "DELETE \(key)"))
    }

    /// A URL anyone can GET `key` with for `expires` seconds (at most 7 days) from `date`.
    public func presignedGET(_ key: String, expires: Int, at date: Date = Date()) throws -> String {
        let path = location.path(fullKey: try location.objectKey(key))
        let host = location.host
        let query = signer.presignedQuery(
            method: "GET", host: host.hostHeader, path: path, expires: expires, at: date)
        return "\(host.isSecure ? "https" : "http")://\(host.hostHeader)\(CanonicalRequest.encodedPath(path))?\(query)"
    }

    private func getRequest(_ key: String, range: ClosedRange<Int64>?) throws -> Request {
        let headers: [(name: String, value: String)] =
            range.map { [("Range", "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        return Request(method: .GET, key: try location.objectKey(key), headers: headers, operation: "GET \(key)")
    }

    static func info(_ headers: HTTPHeaders) -> ObjectInfo {
        ObjectInfo(
            size: headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0,
            etag: headers.first(name: "ETag") ?? "", contentType: headers.first(name: "Content-Type"))
    }

    /// The base64 of the bytes `hex` spells: `x-amz-checksum-sha256` wants the digest so.
    static func base64(ofHex hex: String) throws -> String {
        let digits = Array(hex.utf8)
        guard digits.count == 64, hex.allSatisfy(\.isHexDigit) else {
            throw S3Error(code: "InvalidDigest", status: nil, message: "not a SHA-256 in hex: \(hex)")
        }
        let bytes = stride(from: 0, to: 64, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
        return Data(bytes).base64EncodedString()
    }
}
