import MediadClient
import MediadFoundation

/// Where mediad keeps objects: an S3-compatible endpoint, a bucket, a key prefix inside it, the region the
/// requests are signed for, and how the bucket is addressed (in the path, or as the host's first label).
///
/// Parsed from `--objects s3://bucket/prefix` and `--s3-endpoint URL` strictly, before any request, so a
/// typo is a one-line error at start-up rather than a 403 on the first upload. Keys are joined under the
/// prefix by `objectKey(_:)`, which refuses any key that could leave it.
public struct S3Location: Sendable, Equatable {
    /// The endpoint's scheme, host and port (its target is always `/`).
    public var endpoint: HTTPURL
    public var bucket: String
    /// Empty, or path segments ending with `/` (`media/` for `s3://bucket/media`).
    public var prefix: String
    public var region: String
    /// Path-style (`host/bucket/key`) rather than virtual-hosted (`bucket.host/key`) addressing.
    public var pathStyle: Bool

    /// Why a location or a key was refused, for people.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// `objects` is `s3://bucket[/prefix]`; `endpoint` defaults to AWS's regional endpoint, `region` to
    /// `us-east-1`. Virtual-hosted addressing needs a host name, so an endpoint given as an IP address
    /// must be path-style.
    public init(objects: String, endpoint: String? = nil, region: String? = nil, pathStyle: Bool = false)
        throws(Invalid)
    {
        guard objects.hasPrefix("s3://") else { throw Invalid(message: "--objects must start with s3://: \(objects)") }
        let rest = objects.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        try Self.checkBucket(bucket)
        var prefix = String(rest.dropFirst(bucket.count + 1))
        if prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty {
            try Self.checkKey(prefix, what: "the prefix")
            prefix += "/"
        }
        let region = region ?? "us-east-1"
        guard !region.isEmpty, region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        else { throw Invalid(message: "--s3-region must be lowercase letters, digits and dashes: \(region)") }
        let url: HTTPURL
        do {
            url = try HTTPURL(endpoint ?? "https://s3.\(region).amazonaws.com")
        } catch {
            throw Invalid(message: "--s3-endpoint is not a valid URL: \(error)")
        }
        guard url.target == "/" else {
            throw Invalid(message: "--s3-endpoint must be scheme, host and port only, without a path or query")
        }
        if !pathStyle && url.hostIsAddress {
            throw Invalid(message: "virtual-hosted addressing needs a host name, not \(url.host): use --s3-path-style")
        }
        if !pathStyle && bucket.contains(".") && url.isSecure {
            throw Invalid(message: "a bucket with dots fails TLS as a host name (\(bucket)): use --s3-path-style")
        }
        self.endpoint = url
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
        self.pathStyle = pathStyle
    }

    /// S3's bucket naming rules: 3 to 63 lowercase letters, digits, dots and dashes, starting and ending with
    /// a letter or digit.
    static func checkBucket(_ bucket: String) throws(Invalid) {
        let allowed = bucket.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "-") }
        let edges = [bucket.first, bucket.last].allSatisfy { $0.map { $0.isLowercase || $0.isNumber } ?? false }
        guard (3...63).contains(bucket.count), allowed, edges, !bucket.contains("..") else {
            throw Invalid(message: "not a valid S3 bucket name: \"\(bucket)\"")
        }
    }

    /// A key (or the prefix) with no empty, `.` or `..` segment, no leading `/`, no control characters,
    /// and at most 1024 bytes: such a key names the same object on every store and stays under the prefix.
    static func checkKey(_ key: String, what: String) throws(Invalid) {
        guard !key.isEmpty else { throw Invalid(message: "\(what) is empty") }
        guard key.utf8.count <= 1024 else { throw Invalid(message: "\(what) is longer than 1024 bytes") }
        guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw Invalid(message: "\(what) has control characters")
        }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false)
        where segment.isEmpty || segment == "." || segment == ".." {
            throw Invalid(message: "\(what) has an empty, \".\" or \"..\" path segment: \(key)")
        }
    }

    /// The full key of `key` under the prefix.
    public func objectKey(_ key: String) throws(Invalid) -> String {
        try Self.checkKey(key, what: "the key")
        let full = prefix + key
        guard full.utf8.count <= 1024 else { throw Invalid(message: "the key and prefix are longer than 1024 bytes") }
        return full
    }

    /// The host requests go to, and are signed for: the bucket's own for virtual-hosted addressing.
    var host: HTTPURL {
        guard !pathStyle else { return endpoint }
        var url = endpoint
        url.host = bucket + "." + url.host
        return url
    }

    /// The decoded request path of a full key (nil: the bucket itself), as the signer takes it.
    func path(fullKey: String?) -> String {
        guard let fullKey else { return pathStyle ? "/\(bucket)" : "/" }
        return pathStyle ? "/\(bucket)/\(fullKey)" : "/\(fullKey)"
    }
}
