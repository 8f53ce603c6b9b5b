import Foundation

/// Where the server finds the spec it serves when `--openapi` names none.
enum OpenAPIDocument {
    /// `<prefix>/share/mediad/openapi.yaml` beside an installed `<prefix>/bin/mediad` (`make install`), else
    /// `openapi.yaml` at the root of the source tree the binary was built from.
    static let defaultPath: String = {
        let installed = Bundle.main.executableURL.map {
            $0.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/mediad/openapi.yaml").path
        }
        if let installed, FileManager.default.fileExists(atPath: installed) { return installed }
        return sourceTreePath
    }()

    static let sourceTreePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("openapi.yaml").path
}
