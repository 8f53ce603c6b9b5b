import Foundation
import TestSupport
import Testing

/// The `mediad` executable starts and describes itself (`MEDIAD_BIN`, else the debug build beside the repo).
@Suite struct UsageTests {
    static let binary: String = {
        if let configured = ProcessInfo.processInfo.environment["MEDIAD_BIN"] { return configured }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.appendingPathComponent(".build/debug/mediad").path
    }()

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: binary)))
    func helpNamesTheTool() throws {
        let output = try Command.run(Self.binary, ["--help"])
        #expect(output.text.contains("mediad"))
    }
}
