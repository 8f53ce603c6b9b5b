import Foundation
import TestSupport
import Testing

/// The web console in a real browser: `console_browser.py` drives headless Chromium through Selenium
/// (`make test-deps` installs Debian's chromium and chromium-driver and the pinned Selenium) against two
/// real servers, one open and one with `--auth-tokens`: upload, the job succeeding live, playing its
/// output, a 375 px window, the token prompt, and no error in the browser's console. Its screenshots are
/// kept under `.build/test-artifacts/console/` to be looked at.
@Suite struct ConsoleBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "console_browser.py")
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts/console")

    struct Report: Decodable {
        var problems: [String]
        var screenshots: [String]
    }

    @Test(.timeLimit(.minutes(5))) func uploadWatchAndPlayInChromium() throws {
        let scratch = try Scratch("console-browser")
        let token = "console-token-0123456789"
        let tokens = try scratch.write("tokens", Array("viewer:\(token)\n".utf8))
        let open = try ServerProcess()
        let guarded = try ServerProcess(["--auth-tokens", tokens])
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let run = try Command.run(
            "timeout",
            [
                "240", "python3", Self.script.path, open.baseURL, guarded.baseURL, token, try Fixtures.h264AacMP4(),
                Self.artifacts.path,
            ], allowFailure: true)
        let report = try #require(
            try? JSONDecoder().decode(Report.self, from: run.stdout),
            "console_browser.py exited \(run.status) without a report:\n\(run.stderr.suffix(4000))")
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
        #expect(report.screenshots.count >= 6, "\(report.screenshots)")
        for path in report.screenshots {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
        }
    }
}
