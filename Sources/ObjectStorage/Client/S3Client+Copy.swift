import MediadClient
import NIOHTTP1

/// Copies within the bucket, done by the store (no byte passes through the client): an object that was
/// uploaded under one key and is needed under another.
extension S3Client {
    /// Copies `source` to `key` (both relative to the prefix) and returns the copy's ETag. One request,
    /// so at most 5 GiB on AWS (CopyObject's limit). S3 may answer 200 and report a failure in the body,
    /// which is an `S3Error` here like any other.
    @discardableResult
    public func copyObject(from source: String, to key: String) async throws -> String {
        let from = "/" + location.bucket + "/" + (try location.objectKey(source))
        let operation = "copy \(source) to \(key)"
        let response = try await send(
            Request(
                method: .PUT, key: try location.objectKey(key),
                headers: [("x-amz-copy-source", CanonicalRequest.encodedPath(from))], operation: operation))
        return try response.eTagOfAnswer(operation)
    }
}
