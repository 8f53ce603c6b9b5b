import Foundation
import MediaJobs
import TestSupport
import Testing

/// The web console as served: the page at `GET /` for browsers and the JSON index for everyone else,
/// every file the page loads (found by following its references) under `/console/` with a
/// Content-Security-Policy and nothing from another origin, the catalog it builds its form from, and
/// what needs a token when tokens are on.
@Suite struct ConsoleTests {
    static let html = ["-H", "Accept: text/html,application/xhtml+xml,*/*;q=0.8"]

    @Test func servesThePageItsFilesAndTheIndex() throws {
        let server = try ServerProcess()
        let page = try Curl.run(server.url("/"), Self.html)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["vary"]?.contains("Accept") == true)
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
        for accept in [[], ["-H", "Accept: application/json"]] {
            let index = try Curl.run(server.url("/"), accept)
            #expect(index.headers["content-type"] == "application/json")
            #expect(index.json["service"] as? String == "mediad")
            #expect(index.json["tokens"] as? Bool == false)
            #expect(index.json["events"] as? String == "/events")
        }

        // Every file reachable from the page: stylesheets and scripts, and the modules they import.
        var pending = Self.references(in: page.text)
        var served: Set<String> = []
        while let path = pending.popLast() {
            guard served.insert(path).inserted else { continue }
            let file = try Curl.run(server.url(path))
            #expect(file.status == 200, "\(path)")
            #expect(file.headers["content-security-policy"] == policy)
            #expect(file.headers["x-content-type-options"] == "nosniff")
            let expected = path.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
            #expect(file.headers["content-type"] == expected, "\(path)")
            #expect(!file.text.contains("http://") && !file.text.contains("https://"), "\(path) names another origin")
            pending += Self.references(in: file.text)
        }
        #expect(served.count >= 6, "\(served.sorted())")
        #expect(try Curl.run(server.url("/console/nothing.js")).errorCode == "not_found")
        #expect(try Curl.run(server.url("/console/index.html")).status == 404, "the page is served at / alone")
    }

    /// The `/console/…` paths a page or file names: `href`/`src` attributes and `./x.js` imports.
    static func references(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:href|src)="(/console/[^"]+)"|from "\./([^"]+)""#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            if let range = Range(match.range(at: 1), in: text) { return String(text[range]) }
            return Range(match.range(at: 2), in: text).map { "/console/" + text[$0] }
        }
    }

    @Test func theCatalogIsTheEngines() throws {
        let server = try ServerProcess()
        let reply = try Curl.run(server.url("/catalog"))
        #expect(reply.status == 200)
        let kinds = try #require(reply.json["kinds"] as? [[String: Any]])
        #expect(kinds.compactMap { $0["name"] as? String } == JobCatalog.names)
        for (entry, kind) in zip(kinds, JobCatalog.kinds) {
            let options = entry["options"] as? [[String: Any]] ?? []
            #expect(options.compactMap { $0["name"] as? String } == kind.optionDescriptions.map(\.name))
            for (option, description) in zip(options, kind.optionDescriptions) {
                #expect(option["type"] as? String == description.type.rawValue)
                #expect(option["default"] as? String == description.defaultValue)
                #expect(option["allowed"] as? [String] == description.allowed)
            }
            let inputs = entry["inputs"] as? [[String: Any]] ?? []
            #expect(inputs.compactMap { $0["name"] as? String } == kind.inputs.map(\.name))
        }
    }

    @Test func withTokensThePageIsOpenAndTheAPIIsNot() throws {
        let scratch = try Scratch("console-tokens")
        let tokens = try scratch.write("tokens", Array("alice:alice-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        #expect(try Curl.run(server.url("/"), Self.html).status == 200)
        #expect(try Curl.run(server.url("/console/app.js")).status == 200)
        #expect(try Curl.run(server.url("/catalog")).status == 200)
        #expect(try Curl.run(server.url("/")).json["tokens"] as? Bool == true)
        for path in ["/jobs", "/events"] {
            #expect(try Curl.run(server.url(path), ["--max-time", "10"]).errorCode == "unauthorized", "\(path)")
        }
    }
}
