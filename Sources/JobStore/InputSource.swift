import MediadFoundation

/// An input the server fetches from a URL (`input_url`, `audio_url`, `video_url`) as the first phase of
/// the job's run: which input it becomes, where it comes from (without the query string, which may hold a
/// presigned signature: the whole URL is kept apart, in the job's `egress.json`) and how far it got.
public struct InputSource: Codable, Sendable, Equatable {
    /// `pending` until the job runs, `fetching` while it runs, then `fetched` (the input is listed in
    /// `inputs`) or `failed` (the job's error says why).
    public enum State: String, Codable, Sendable {
        case pending, fetching, fetched, failed
    }

    /// The input's name in the job, as in `inputs`.
    public var name: String
    /// Scheme, host, port and path of the URL.
    public var url: String
    public var state: State
    /// The HTTP status of the last response, once one came; null in JSON until then.
    @ExplicitNull public var status: Int?

    public init(name: String, url: String, state: State = .pending, status: Int? = nil) {
        self.name = name
        self.url = url
        self.state = state
        self.status = status
    }
}

extension JobRecord {
    /// Puts every input source not yet fetched in `state`: `fetching` when a run starts, `pending` when
    /// the job goes back to the queue.
    public mutating func markUnfetchedSources(_ state: InputSource.State) {
        inputSources = inputSources?.map { source in
            var source = source
            if source.state != .fetched { source.state = state }
            return source
        }
    }
}
