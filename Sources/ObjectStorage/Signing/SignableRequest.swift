/// An HTTP request as AWS Signature Version 4 sees it: method, path, query and headers, before signing.
///
/// The path and the query are given decoded (an object key as it is, `a b+c/ü.mp4`); the signer encodes
/// them once, byte by byte, as S3 expects (no path normalisation, no second encoding). Headers keep their
/// order: repeated names are joined in it.
public struct SignableRequest: Sendable {
    public var method: String
    /// The decoded path, starting with `/`.
    public var path: String
    /// Decoded query parameters, in any order; a parameter without `=` has an empty value.
    public var query: [(name: String, value: String)]
    /// Every header to sign, `Host` included.
    public var headers: [(name: String, value: String)]
    /// The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD` (`SigV4Signer.unsignedPayload`).
    public var payloadHash: String

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)], payloadHash: String
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }
}
