import Foundation
import TestSupport
import Testing

/// The web console in a real browser: `console_browser.py` drives headless Chromium through Selenium
/// (`make test-deps` installs Debian's chromium and chromium-driver and the pinned Selenium) against two
/// real servers, one open and one with `--auth-tokens`: upload, the job succeeding live, playing its
/// output, a mux of two files, paging and filters over jobs made beforehand (some failing), labels on the
/// upload form, an audio preview, a waveform picture, the curl command, Cancel and Delete of a running
/// job, the long-poll fallback with the event stream blocked, a 375 px window, the token prompt, and no
/// error in the browser's console. Its screenshots are kept under
/// `.build/test-artifacts/console/` to be looked at.
@Suite struct ConsoleBrowserTests {
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts/console")

    struct Report: Decodable {
        var problems: [String]
        var screenshots: [String]
    }

    @Test(.timeLimit(.minutes(9))) func uploadWatchAndPlayInChromium() throws {
        let scratch = try Scratch("console-browser")
        let token = "console-token-0123456789"
        let tokens = try scratch.write("tokens", Array("viewer:\(token)\n".utf8))
        let open = try ServerProcess(["--egress-allow", "127.0.0.1", "--egress-idle-timeout", "5m"])
        let guarded = try ServerProcess(["--auth-tokens", tokens])
        let earlier = try Self.makeEarlierJobs(on: open, in: scratch)
        let stalling = try PeerProcess.script("file_server.py", [scratch.path])
        var made = try Self.makeJobsToOpen(on: open)
        made["stall"] = stalling.url + "/stall"
        try? FileManager.default.removeItem(at: Self.artifacts)
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let run = try BrowserScript.run(
            "console_browser.py",
            [
                open.baseURL, guarded.baseURL, token, try Fixtures.h264AacMP4(), try Fixtures.adts(),
                try Fixtures.h264AnnexB(), String(earlier), Self.artifacts.path,
                String(decoding: try JSONSerialization.data(withJSONObject: made), as: UTF8.self),
            ], killAfter: 240)
        let report = try #require(
            try? JSONDecoder().decode(Report.self, from: run.stdout),
            "console_browser.py exited \(run.status) without a report:\n\(run.stderr.suffix(4000))")
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
        #expect(report.screenshots.count >= 10, "\(report.screenshots)")
        for path in report.screenshots {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
        }
    }

    /// The ended jobs the browser opens one by one: an encode to m4a (an audio preview) and a waveform (a
    /// PNG).
    static func makeJobsToOpen(on server: ServerProcess) throws -> [String: String] {
        var made: [String: String] = [:]
        for (name, path) in [("audio", "/jobs/encode?format=m4a&wait=60"), ("picture", "/jobs/waveform?wait=60")] {
            let reply = try Curl.run(server.baseURL + path, ["-T", try Fixtures.wav()])
            try #require(reply.json["state"] as? String == "succeeded", "\(path): \(reply.status) \(reply.text)")
            made[name] = try #require(reply.json["id"] as? String)
        }
        return made
    }

    /// More jobs than one page of the list holds, made through the API before the page opens: remuxes
    /// of a whole file, and two of a file cut short, which fail when they run. Returns how many, once
    /// every one has ended.
    static func makeEarlierJobs(on server: ServerProcess, in scratch: Scratch) throws -> Int {
        let whole = try Fixtures.h264AacMP4()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = try scratch.write("cut.mp4", Array(bytes.prefix(bytes.count / 2)))
        let files = Array(repeating: whole, count: 22) + [cut, cut]
        var ids: [String] = []
        for file in files {
            let reply = try Curl.run(server.baseURL + "/jobs/remux?format=mkv", ["-T", file])
            try #require(reply.status == 202, "\(reply.status) \(reply.text)")
            ids.append(try #require(reply.json["id"] as? String))
        }
        let deadline = Date().addingTimeInterval(120)
        for id in ids {
            while try !["succeeded", "failed", "cancelled"].contains(
                Curl.run(server.baseURL + "/jobs/\(id)").json["state"] as? String ?? "")
            {
                try #require(Date() < deadline, "job \(id) did not end")
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        return files.count
    }
}
