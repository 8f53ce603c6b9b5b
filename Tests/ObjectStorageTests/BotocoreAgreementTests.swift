import Foundation
@testable import ObjectStorage
import TestSupport
import Testing

/// The signer against botocore's S3 signers (PyPI's boto3, which `make test` installs), for the keys that
/// trip signers up: spaces, unicode, `+`, `%`, `~`, nested folders, and query values with `/`, `+` and `=`.
/// Header-signed requests must carry botocore's `Authorization` to the byte; presigned URLs the same
/// parameters and signature.
@Suite struct BotocoreAgreementTests {
    static let keys = [
        "plain.mp4", "a b.mp4", "ünïcode/ファイル.mp4", "plus+sign.mp4", "percent%20literal.mp4",
        "tilde~and(parens)!*'.mp4", "nested/dir/deep/x.mp4", "semi;colon,comma=eq&amp.mp4",
    ]
    static let query: [(name: String, value: String)] = [("partNumber", "3"), ("uploadId", "a/b+c= d")]
    static let time = "2026-11-28T01:02:03Z"
    static let host = "127.0.0.1:8333"

    struct Signed: Decodable {
        var headers: [String: String]?
        var query: String?
    }

    static func signer(sessionToken: String?) -> SigV4Signer {
        SigV4Signer(
            credentials: SigningCredentials(
                accessKeyID: "AKIDMEDIAD", secretAccessKey: "secret/with+odd=chars", sessionToken: sessionToken),
            region: "eu-central-1")
    }

    /// What botocore makes of `requests` (each: method, path, query, headers, body, expires or nil).
    static func botocore(_ requests: [[String: Any]], sessionToken: String?) throws -> [Signed] {
        var job: [String: Any] = [
            "accessKeyID": "AKIDMEDIAD", "secretAccessKey": "secret/with+odd=chars", "region": "eu-central-1",
            "time": time, "requests": requests,
        ]
        if let sessionToken { job["sessionToken"] = sessionToken }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("botocore_sign.py").path
        let scratch = try Scratch("botocore-sign")
        let request = scratch.file("job.json")
        try JSONSerialization.data(withJSONObject: job).write(to: URL(fileURLWithPath: request))
        let output = try Command.run("python3", [script, request])
        return try JSONDecoder().decode([Signed].self, from: output.stdout)
    }

    @Test(arguments: [nil, "FQoGZXIvYXdzEJr//token+with/slashes=="])
    func headerSignedRequestsMatch(sessionToken: String?) throws {
        let body = "hello, bucket"
        let hash = SigV4Signer.sha256Hex(Array(body.utf8))
        let requests: [[String: Any]] = Self.keys.enumerated().map { index, key in
            [
                "method": "PUT", "host": Self.host, "path": "/media/" + key,
                "query": index.isMultiple(of: 2) ? Self.query.map { [$0.name, $0.value] } : [],
                "headers": ["Content-Type": "video/mp4"], "body": body,
            ]
        }
        let theirs = try Self.botocore(requests, sessionToken: sessionToken)
        try #require(theirs.count == Self.keys.count)
        let date = try #require(ISO8601DateFormatter().date(from: Self.time))
        for (index, key) in Self.keys.enumerated() {
            let request = SignableRequest(
                method: "PUT", path: "/media/" + key, query: index.isMultiple(of: 2) ? Self.query : [],
                headers: [("Host", Self.host), ("Content-Type", "video/mp4"), ("X-Amz-Content-SHA256", hash)],
                payloadHash: hash)
            let ours = Dictionary(
                uniqueKeysWithValues: Self.signer(sessionToken: sessionToken).authorizationHeaders(
                    for: request, at: date))
            let expected = try #require(theirs[index].headers)
            #expect(ours["Authorization"] == expected["Authorization"], "\(key)")
            #expect(ours["X-Amz-Date"] == expected["X-Amz-Date"], "\(key)")
            #expect(ours["X-Amz-Security-Token"] == expected["X-Amz-Security-Token"], "\(key)")
            #expect(expected["X-Amz-Content-SHA256"] == hash, "botocore signed another payload hash")
        }
    }

    @Test(arguments: [nil, "FQoGZXIvYXdzEJr//token+with/slashes=="])
    func presignedURLsMatch(sessionToken: String?) throws {
        let requests: [[String: Any]] = Self.keys.map { key in
            [
                "method": "GET", "host": Self.host, "path": "/media/" + key, "query": [], "headers": [:], "body": "",
                "expires": 900,
            ]
        }
        let theirs = try Self.botocore(requests, sessionToken: sessionToken)
        try #require(theirs.count == Self.keys.count)
        let date = try #require(ISO8601DateFormatter().date(from: Self.time))
        for (index, key) in Self.keys.enumerated() {
            let ours = Self.signer(sessionToken: sessionToken).presignedQuery(
                method: "GET", host: Self.host, path: "/media/" + key, expires: 900, at: date)
            let expected = try #require(theirs[index].query)
            #expect(Self.sortedParameters(ours) == Self.sortedParameters(expected), "\(key)")
        }
    }

    /// A query's parameters, decoded and sorted, so that two orders of the same query compare equal.
    static func sortedParameters(_ query: String) -> [String] {
        query.split(separator: "&").map { String($0).removingPercentEncoding ?? String($0) }.sorted()
    }
}
