import MediaCore

/// What `mediad --version` prints: the release, then the libav libraries it runs with.
enum MediadVersion {
    /// The release; raised with every round of issues that lands.
    static let release = "0.19.0"

    static var text: String { "mediad \(release) (\(LibavVersion.description))" }
}
