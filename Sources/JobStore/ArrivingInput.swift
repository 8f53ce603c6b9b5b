/// An input still being uploaded while its job is queued or runs (`POST /jobs/{kind}` with a raw body
/// answers that job's request only once the body has ended): its name in the job and the size its
/// request declared. The job's worker reads the file as it grows; once the body ended and passed its
/// checks the input moves to the record's `inputs`, with its SHA-256.
public struct ArrivingInput: Codable, Sendable, Equatable {
    public var name: String
    /// Bytes the request's `Content-Length` declared.
    public var size: Int64

    public init(name: String, size: Int64) {
        self.name = name
        self.size = size
    }
}
