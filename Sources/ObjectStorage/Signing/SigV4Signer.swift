import Digests
import Foundation

/// Signs requests to an S3-compatible store with AWS Signature Version 4, in an `Authorization` header or
/// as a presigned URL's query (the AWS documents "Signature Version 4 signing process" and "Authenticating
/// Requests: Using Query Parameters").
///
/// The signature is an HMAC-SHA256 chain from the secret key through the day, the region and the service
/// (`signingKey`) over a string that names the time, the scope and the SHA-256 of the canonical request
/// (`CanonicalRequest`). It runs on `Digests`, the module that holds mediad's libcrypto calls.
public struct SigV4Signer: Sendable {
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The payload hash of a request whose body is not signed (a presigned URL, a streamed upload over TLS).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public let credentials: SigningCredentials
    public let region: String
    public let service: String

    public init(credentials: SigningCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to `request` at `date`: `X-Amz-Date`, `X-Amz-Security-Token` for temporary
    /// credentials (both signed), and `Authorization`. A request that already carries `X-Amz-Date` is signed
    /// at that time.
    public func authorizationHeaders(for request: SignableRequest, at date: Date) -> [(name: String, value: String)] {
        var request = request
        var added: [(name: String, value: String)] = []
        let stamp: String
        if let given = request.headers.first(where: { $0.name.lowercased() == "x-amz-date" })?.value {
            stamp = given
        } else {
            stamp = Self.timestamp(date)
            added.append(("X-Amz-Date", stamp))
        }
        if let token = credentials.sessionToken,
            !request.headers.contains(where: { $0.name.lowercased() == "x-amz-security-token" })
        {
            added.append(("X-Amz-Security-Token", token))
        }
        request.headers += added
        let canonical = CanonicalRequest(request)
        let scope = scope(day: String(stamp.prefix(8)))
        let signature = sign(canonical, timestamp: stamp, scope: scope)
        let authorization =
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// The query of a presigned URL for `method` on `path` at `host`, valid `expires` seconds from `date`
    /// (at most 7 days, S3's limit): the given `query` plus the `X-Amz-*` parameters and the signature, encoded
    /// and ready to follow `?`. Only `host` is signed, and the payload is not.
    public func presignedQuery(
        method: String, host: String, path: String, query: [(name: String, value: String)] = [], expires: Int,
        at date: Date
    ) -> String {
        let stamp = Self.timestamp(date)
        let scope = scope(day: String(stamp.prefix(8)))
        var parameters =
            query + [
                ("X-Amz-Algorithm", Self.algorithm),
                ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope)"),
                ("X-Amz-Date", stamp),
                ("X-Amz-Expires", String(min(max(expires, 1), 604_800))),
                ("X-Amz-SignedHeaders", "host"),
            ]
        if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token)) }
        let canonical = CanonicalRequest(
            SignableRequest(
                method: method, path: path, query: parameters, headers: [("Host", host)],
                payloadHash: Self.unsignedPayload))
        let signature = sign(canonical, timestamp: stamp, scope: scope)
        return CanonicalRequest.canonicalQuery(parameters) + "&X-Amz-Signature=" + signature
    }

    /// `<day>/<region>/<service>/aws4_request`, the credential scope.
    func scope(day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    /// The string to sign for `canonical` (exposed to the tests, which check it against the AWS suite).
    func stringToSign(_ canonical: CanonicalRequest, timestamp: String, scope: String) -> String {
        [Self.algorithm, timestamp, scope, Self.sha256Hex(Array(canonical.text.utf8))].joined(separator: "\n")
    }

    private func sign(_ canonical: CanonicalRequest, timestamp: String, scope: String) -> String {
        let key = signingKey(day: String(timestamp.prefix(8)))
        let text = stringToSign(canonical, timestamp: timestamp, scope: scope)
        return Hex.lowercase(HMAC.sha256(key: key, message: Array(text.utf8)))
    }

    /// HMAC("AWS4" + secret, day) → region → service → "aws4_request".
    func signingKey(day: String) -> [UInt8] {
        [day, region, service, "aws4_request"].reduce(Array(("AWS4" + credentials.secretAccessKey).utf8)) {
            HMAC.sha256(key: $0, message: Array($1.utf8))
        }
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, the form of `X-Amz-Date`.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// The lowercase hex SHA-256 of `bytes`: a payload hash, or the hash of a canonical request.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        let hasher = SHA256Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}
