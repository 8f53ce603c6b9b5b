import ObjectStorage

/// Where `--objects` keeps job outputs (a bucket and prefix on an S3-compatible store) and how downloads
/// reach them: a `302` to a presigned GET, or streamed through mediad with `--objects-proxy`.
public struct ObjectSettings: Sendable {
    public var location: S3Location
    /// Downloads stream the object through the server instead of redirecting to the store (for stores
    /// clients cannot reach).
    public var proxy = false
    /// How long a download's presigned URL is valid, in seconds.
    public var downloadExpiry = 300
    /// A job's inputs are staged from the bucket whole, and checked, before its worker starts, instead of
    /// while the worker already reads them (`--objects-stage-whole`).
    public var stageWhole = false
    /// How long a request to the store (a PUT, a part, a completion …) is retried, from its first send,
    /// while the store fails or does not answer: an outage shorter than this is ridden out.
    public var retryWindow: Duration = .seconds(30)

    public init(location: S3Location) {
        self.location = location
    }
}
