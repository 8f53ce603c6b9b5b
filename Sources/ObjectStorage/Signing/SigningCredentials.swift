/// The keys a request to an S3-compatible store is signed with: an access key pair, and the session token
/// of temporary credentials (STS), which travels with the request as `X-Amz-Security-Token`.
public struct SigningCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
