import Foundation

/// The real-world files in `../shared/media/real/` and in the repository's `Tests/Media/real/`, as the
/// MANIFEST.tsv of each describes them.
public struct RealMedia: Sendable, CustomStringConvertible {
    public var path: String
    public var name: String
    /// "ok" for files that must work, "broken" for files damaged on purpose.
    public var expect: String
    public var notes: String

    public var description: String { name }

    /// The manifest's directory: `MEDIAD_REAL_MEDIA`, else `../shared/media/real` beside the repo.
    public static var directory: String {
        if let configured = ProcessInfo.processInfo.environment["MEDIAD_REAL_MEDIA"] { return configured }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared/media/real").path
    }

    /// The small files kept in the repository (`Tests/Media/real`), with their licences in LICENSES.txt.
    public static var bundledDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Media/real").path
    }

    /// Every file of both manifests; a missing directory adds none.
    public static func all() -> [RealMedia] { files(in: directory) + files(in: bundledDirectory) }

    /// Every file in the manifest of `directory`; empty when it is missing.
    public static func files(in directory: String) -> [RealMedia] {
        guard let text = try? String(contentsOfFile: directory + "/MANIFEST.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6 else { return nil }
            return RealMedia(
                path: directory + "/" + fields[0], name: fields[0], expect: fields[5],
                notes: fields.count > 6 ? fields[6] : "")
        }
    }
}
