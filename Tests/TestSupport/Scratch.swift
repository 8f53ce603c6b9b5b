import Foundation

/// A temporary directory for one test, removed when the value is released.
public final class Scratch: @unchecked Sendable {
    // Immutable after init; the directory is owned by this one test.
    public let path: String

    /// Creates the directory in the system's temporary directory, or in `parent` (a test that needs a
    /// disk's file system, where the temporary directory may be a tmpfs).
    public init(_ label: String = "test", in parent: String? = nil) throws {
        let base = (parent.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("mediad-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes bytes to a file in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// Files in the directory, hidden ones included, sorted.
    public func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension Scratch {
    /// True when the directory holds exactly `names` (no temporary or partial files left over).
    public static func listingIsOnly(_ names: [String], in scratch: Scratch) throws -> Bool {
        try scratch.listing() == names.sorted()
    }
}
