import MediadFoundation

/// An output the server PUTs to a URL after the job succeeded (`output_url`, `output_urls`): which output,
/// where (without the query string, which may hold a presigned signature: the whole URL is kept apart, in
/// the job's `egress.json`), and how it went.
public struct OutputDelivery: Codable, Sendable, Equatable {
    /// `pending` until the job ends; `delivering` while attempts run; then `delivered` (a 2xx), `failed`
    /// (out of attempts, a 4xx, a refused address, no such output) or `skipped` (the job did not succeed).
    public enum State: String, Codable, Sendable {
        case pending, delivering, delivered, failed, skipped

        /// True for the states a delivery never leaves.
        public var isFinal: Bool { self == .delivered || self == .failed || self == .skipped }
    }

    /// The output's name, as in `outputs`.
    public var name: String
    /// Scheme, host, port and path of the URL.
    public var url: String
    public var state: State
    /// PUTs started so far.
    public var attempts: Int
    /// The HTTP status of the last answer; nil before one came. It, `etag` and `error` are always in the
    /// JSON, null when not set.
    @ExplicitNull public var status: Int?
    /// The `ETag` the target answered a successful PUT with (an object store's version of the object).
    @ExplicitNull public var etag: String?
    /// What went wrong last, for people; nil once delivered.
    @ExplicitNull public var error: String?

    public init(name: String, url: String) {
        self.name = name
        self.url = url
        state = .pending
        attempts = 0
    }
}
