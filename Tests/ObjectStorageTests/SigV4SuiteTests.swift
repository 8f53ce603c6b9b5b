import Foundation
@testable import ObjectStorage
import Testing

/// The signer against AWS's own Signature Version 4 test suite: for each request, the canonical request,
/// the string to sign and the `Authorization` header must be AWS's to the byte.
@Suite struct SigV4SuiteTests {
    struct Suite: Decodable {
        struct Credentials: Decodable {
            var accessKeyID: String
            var secretAccessKey: String
            var sessionToken: String
        }
        struct Case: Decodable, CustomTestStringConvertible {
            var name: String
            var method: String
            var path: String
            var query: String
            var headers: [[String]]
            var body: String
            var canonicalRequest: String
            var stringToSign: String
            var authorization: String
            var testDescription: String { name }
        }
        var credentials: Credentials
        var region: String
        var service: String
        var date: String
        var cases: [Case]
    }

    static let suite: Suite = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("aws-sigv4-suite/suite.json")
        // The file is part of the test target's sources; a missing or malformed one fails every test below.
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONDecoder().decode(Suite.self, from: data))
            ?? Suite(
                credentials: .init(accessKeyID: "", secretAccessKey: "", sessionToken: ""), region: "", service: "",
                date: "", cases: [])
    }()

    @Test func theSuiteIsThere() {
        #expect(Self.suite.cases.count == 21)
    }

    @Test(arguments: suite.cases) func signsLikeAWS(_ test: Suite.Case) throws {
        let suite = Self.suite
        let sessionToken = test.headers.contains { $0[0].lowercased() == "x-amz-security-token" }
        let signer = SigV4Signer(
            credentials: SigningCredentials(
                accessKeyID: suite.credentials.accessKeyID, secretAccessKey: suite.credentials.secretAccessKey,
                sessionToken: sessionToken ? suite.credentials.sessionToken : nil),
            region: suite.region, service: suite.service)
        let request = SignableRequest(
            method: test.method, path: test.path, query: Self.parameters(test.query),
            headers: test.headers.map { ($0[0], $0[1]) },
            payloadHash: SigV4Signer.sha256Hex(Array(test.body.utf8)))

        let canonical = CanonicalRequest(request)
        #expect(canonical.text == test.canonicalRequest)
        // Two cases of the published suite contradict themselves: their string to sign hashes another
        // canonical request than the one they give (made before `content-length` was signed). Only the
        // canonical request can be checked there.
        let consistent =
            SigV4Signer.sha256Hex(Array(test.canonicalRequest.utf8))
            == test.stringToSign.split(separator: "\n").last.map(String.init)
        guard consistent else {
            #expect(Self.selfContradicting.contains(test.name), "\(test.name)'s string to sign is not its own")
            return
        }
        let stamp = try #require(test.headers.first { $0[0].lowercased() == "x-amz-date" }?[1])
        #expect(
            signer.stringToSign(canonical, timestamp: stamp, scope: signer.scope(day: String(stamp.prefix(8))))
                == test.stringToSign)
        let date = try #require(ISO8601DateFormatter().date(from: suite.date))
        let added = signer.authorizationHeaders(for: request, at: date)
        #expect(added.map(\.name) == ["Authorization"], "the request carries its date and token already")
        #expect(added.last?.value == test.authorization)
    }

    static let selfContradicting: Set<String> = [
        "post-x-www-form-urlencoded", "post-x-www-form-urlencoded-parameters",
    ]

    /// The raw query of a case (`a=b&c`, not encoded) as decoded parameters.
    static func parameters(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }
}
