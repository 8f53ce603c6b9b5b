import Foundation
import TestSupport
import Testing

/// Live responses through httplint (PyPI, the engine of REDbot; `make test-deps` installs the pinned
/// version) with `http_lint.py`: a download (whole, ranged, `HEAD`, revalidated), a job, a list and
/// errors. No finding may be `bad`, httplint's level for a broken requirement of RFC 9110/9111.
@Suite(.serialized) struct HTTPLintTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "http_lint.py")

    struct Finding: Decodable {
        var request: String
        var status: Int
        var notes: [Note]

        struct Note: Decodable {
            var level: String
            var summary: String
        }
    }

    /// Lints each `(method, path, headers)` on `server`.
    static func lint(_ server: ServerProcess, _ requests: [(String, String, [String])]) throws -> [Finding] {
        let list = requests.map { ["method": $0.0, "path": $0.1, "headers": $0.2] as [String: Any] }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        let output = try Command.run("python3", [script.path, String(server.port), json])
        return try JSONDecoder().decode([Finding].self, from: output.stdout)
    }

    @Test func responsesHaveNoFindingsOfBrokenRequirements() throws {
        let server = try ServerProcess()
        let job = try Curl.run(
            server.url("/jobs/remux/na%C3%AFve.mp4?format=mkv&wait=60"), ["-T", try Fixtures.h264AacMP4()]
        ).json
        let id = try #require(job["id"] as? String)
        let output = "/jobs/\(id)/output"
        let etag = try #require(try Curl.run(server.url(output)).headers["etag"])
        let findings = try Self.lint(
            server,
            [
                ("GET", output, []), ("HEAD", output, []), ("GET", output, ["Range: bytes=10-99"]),
                ("GET", output, ["If-None-Match: W/\(etag)"]), ("GET", output, ["If-Match: \"0\""]),
                ("GET", "/jobs/\(id)", []), ("GET", "/jobs", ["Accept-Encoding: gzip"]),
                ("GET", "/jobs/\(id)/log", []), ("GET", "/nothing", []), ("POST", "/healthz", []),
                ("GET", output, ["Range: bytes=999999999-"]), ("GET", "/healthz", []),
            ])
        #expect(findings.count == 12)
        for finding in findings {
            let bad = finding.notes.filter { $0.level == "bad" }.map(\.summary)
            #expect(bad.isEmpty, "\(finding.request) → \(finding.status): \(bad)")
        }
    }
}
