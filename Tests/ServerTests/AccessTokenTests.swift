import Foundation
import TestSupport
import Testing

/// `--auth-tokens`: who may call the API, and whose jobs each token sees.
@Suite(.serialized) struct AccessTokenTests {
    static let tokens = [
        "alice": "alice-token-0123456789", "bob": "bob-token-0123456789", "root": "root-token-0123456789",
    ]

    func server(_ scratch: Scratch) throws -> ServerProcess {
        let file = try scratch.write(
            "tokens",
            Array(
                "# name:token[:admin]\nalice:\(Self.tokens["alice"]!)\nbob:\(Self.tokens["bob"]!)\nroot:\(Self.tokens["root"]!):admin\n"
                    .utf8))
        return try ServerProcess(["--auth-tokens", file])
    }

    func bearer(_ name: String) -> [String] { ["-H", "Authorization: Bearer \(Self.tokens[name]!)"] }

    @Test func everyRouteButHealthNeedsAToken() throws {
        let scratch = try Scratch("auth")
        let server = try server(scratch)
        #expect(try Curl.run(server.url("/healthz")).status == 200)
        #expect(try Curl.run(server.url("/readyz")).status == 200)
        for path in ["/jobs", "/openapi.yaml", "/jobs/AAAAAAAAAAAAAAAAAAAAAA", "/nothing"] {
            let anonymous = try Curl.run(server.url(path))
            #expect(anonymous.status == 401, "\(path)")
            #expect(anonymous.errorCode == "unauthorized")
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            #expect(
                try Curl.run(server.url(path), ["-H", "Authorization: Bearer alice-token-0123456780"]).status == 401)
        }
        let refused = try Curl.run(server.url("/jobs/remux"), ["-T", try Fixtures.h264AacMP4()])
        #expect(refused.status == 401)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").isEmpty)
    }

    @Test func jobsBelongToTheTokenThatMadeThem() throws {
        let scratch = try Scratch("auth")
        let server = try server(scratch)
        let job = try Curl.run(server.url("/jobs/remux?wait=30"), ["-T", try Fixtures.h264AacMP4()] + bearer("alice"))
            .json
        let id = try #require(job["id"] as? String)
        #expect(job["owner"] as? String == "alice")
        #expect(try Curl.run(server.url("/jobs/\(id)"), bearer("alice")).status == 200)
        for path in ["/jobs/\(id)", "/jobs/\(id)/output", "/jobs/\(id)/log"] {
            #expect(try Curl.run(server.url(path), bearer("bob")).status == 404, "\(path)")
        }
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"] + bearer("bob")).status == 404)
        let bobsList = try Curl.run(server.url("/jobs"), bearer("bob")).json["jobs"] as? [Any]
        #expect(bobsList?.isEmpty == true)
        let rootList = try Curl.run(server.url("/jobs"), bearer("root")).json["jobs"] as? [[String: Any]]
        #expect(rootList?.compactMap { $0["id"] as? String } == [id])
        #expect(try Curl.run(server.url("/jobs/\(id)/output"), bearer("root")).status == 200)

        let everything = try Command.run(
            "grep", ["-r", "-l", "token-0123456789", server.dataDirectory], allowFailure: true)
        #expect(everything.text.isEmpty, "a token was written to \(everything.text)")
    }

    @Test func aBadTokenFileStopsTheServerFromStarting() throws {
        let scratch = try Scratch("auth")
        let file = try scratch.write("tokens", Array("alice:short\n".utf8))
        let output = try Command.run(
            ServerProcess.binary, ["serve", "--port", "0", "--data-dir", scratch.file("data"), "--auth-tokens", file],
            allowFailure: true)
        #expect(output.status != 0)
        #expect(output.stderr.contains("line 1"))
    }
}
