import MediadClient
import ObjectStorage
import TestSupport

/// The shared SeaweedFS wrapper (`TestSupport.SeaweedFS`) as the object storage tests use it: with clients
/// of `S3Client` for its bucket.
extension SeaweedFS {
    /// The key pair the store accepts.
    static let credentials = SigningCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)

    /// A client of the bucket `mediad` under `prefix`, path-style, retrying quickly.
    func client(prefix: String, credentials: SigningCredentials = SeaweedFS.credentials, attempts: Int = 3) throws
        -> S3Client
    {
        let location = try S3Location(objects: "s3://mediad/\(prefix)", endpoint: endpoint, pathStyle: true)
        return S3Client(
            location: location, credentials: credentials, http: try HTTPClient(),
            retry: S3RetryPolicy(attempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
    }
}
