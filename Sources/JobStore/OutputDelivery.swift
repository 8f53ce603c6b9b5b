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
    /// The HTTP status of the last answer; nil before one came.
    public var status: Int?
    /// The `ETag` the target answered a successful PUT with (an object store's version of the object).
    public var etag: String?
    /// What went wrong last, for people; nil once delivered.
    public var error: String?

    public init(name: String, url: String) {
        self.name = name
        self.url = url
        state = .pending
        attempts = 0
    }

    enum CodingKeys: String, CodingKey {
        case name, url, state, attempts, status, etag, error
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        url = try container.decode(String.self, forKey: .url)
        state = try container.decode(State.self, forKey: .state)
        attempts = try container.decode(Int.self, forKey: .attempts)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    /// `status`, `etag` and `error` are always present, null when not set.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(url, forKey: .url)
        try container.encode(state, forKey: .state)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(status, forKey: .status)
        try container.encode(etag, forKey: .etag)
        try container.encode(error, forKey: .error)
    }
}
