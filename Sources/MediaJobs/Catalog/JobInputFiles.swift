import MediaCore

/// The input files of one run, by part name; only the parts that were given.
public struct JobInputFiles: Sendable {
    public var paths: [String: String]

    public init(_ paths: [String: String]) { self.paths = paths }

    /// The path of `part`, or nil when it was not given.
    public subscript(part: String) -> String? { paths[part] }

    /// The path of a part the kind cannot run without.
    public func path(of part: String) throws -> String {
        guard let path = paths[part] else { throw MediaError(.internalError, "the job has no '\(part)' input") }
        return path
    }
}
