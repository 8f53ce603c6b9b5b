import Digests

/// A file's name, size and SHA-256 (lowercase hex): a job's input as received (`JobInput`), or an output
/// as the worker that wrote it reports it, so the server lists outputs without reading them again.
public struct FileDigest: Codable, Sendable, Equatable {
    public var name: String
    public var size: Int64
    public var sha256: String

    public init(name: String, size: Int64, sha256: String) {
        self.name = name
        self.size = size
        self.sha256 = sha256
    }

    /// Reads the file `name` in `directory` once to hash it.
    public init(hashing name: String, in directory: String) throws {
        let (size, sha256) = try SHA256Hasher.hexDigest(ofFileAt: directory + "/" + name)
        self.init(name: name, size: size, sha256: sha256)
    }
}
