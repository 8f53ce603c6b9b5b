/// Who made a request, as the server's authentication found it: the name of an API token, and whether
/// that token sees and manages every job rather than only its own.
public struct RequestCaller: Sendable, Equatable {
    public var name: String
    /// Sees and manages every job, not only its own.
    public var isAdmin: Bool

    public init(name: String, isAdmin: Bool) {
        self.name = name
        self.isAdmin = isAdmin
    }
}
