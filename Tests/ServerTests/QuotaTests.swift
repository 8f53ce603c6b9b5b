import Foundation
import TestSupport
import Testing

/// `--quota`: the bytes each API token stores (its jobs' inputs and outputs, its uploads held) are bounded;
/// what would pass the bound gets 507 `quota_exceeded`, other tokens are not affected, deleting frees it.
@Suite(.serialized) struct QuotaTests {
    static let quota = 3 << 20

    func server(_ scratch: Scratch) throws -> ServerProcess {
        let tokens = try scratch.write(
            "tokens", Array("alice:alice-token-0123456789\nbob:bob-token-0123456789\n".utf8))
        return try ServerProcess(["--auth-tokens", tokens, "--quota", String(Self.quota)])
    }

    func bearer(_ name: String) -> [String] { ["-H", "Authorization: Bearer \(name)-token-0123456789"] }

    /// An encode to WAV stores its PCM twice: as the input and (with a 44-byte header) as the output.
    static let encode = "/jobs/encode?format=wav&sample_rate=44100&channels=2&wait=60"

    @Test func aTokenThatFilledItsQuotaIsRefusedAndOthersAreNot() throws {
        let scratch = try Scratch("quota")
        let server = try server(scratch)
        let pcm = try IsolationTests.noisePCM(scratch, 6)  // 1,058,400 bytes
        let first = try Curl.run(server.url(Self.encode), ["-T", pcm] + bearer("alice")).json
        #expect(first["state"] as? String == "succeeded", "\(first)")
        let firstID = try #require(first["id"] as? String)

        // 2.1 MB stored and 1.06 MB more announced: refused from the head, nothing of the body kept.
        let announced = try Curl.run(server.url(Self.encode), ["-T", pcm] + bearer("alice"))
        #expect(announced.status == 507, "\(announced.text)")
        #expect(announced.errorCode == "quota_exceeded")
        #expect(announced.errorMessage.contains("'alice'") && announced.errorMessage.contains("--quota"))
        let chunked = try Curl.run(
            server.url(Self.encode), ["-T", pcm, "-H", "Transfer-Encoding: chunked"] + bearer("alice"))
        #expect(chunked.status == 507, "\(chunked.text)")
        #expect(chunked.errorCode == "quota_exceeded")
        let tus = try Tus.create(server, length: 1_058_400, bearer("alice"))
        #expect(tus.status == 507 && tus.errorCode == "quota_exceeded", "\(tus.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)

        let bobs = try Curl.run(server.url(Self.encode), ["-T", pcm] + bearer("bob")).json
        #expect(bobs["state"] as? String == "succeeded", "another token stores apart: \(bobs)")

        // What is stored is counted again from the records after a restart.
        server.stop()
        try server.launch()
        #expect(try Curl.run(server.url(Self.encode), ["-T", pcm] + bearer("alice")).status == 507)

        #expect(try Curl.run(server.url("/jobs/\(firstID)"), ["-X", "DELETE"] + bearer("alice")).status == 204)
        let again = try Curl.run(server.url(Self.encode), ["-T", pcm] + bearer("alice")).json
        #expect(again["state"] as? String == "succeeded", "deleting the job freed its bytes: \(again)")
    }

    /// A job whose outputs would take its token past the quota fails with `quota_exceeded` and leaves no
    /// output; a decode whose frames would is refused before it decodes anything.
    @Test func aJobWhoseOutputsPassTheQuotaFails() throws {
        let scratch = try Scratch("quota-outputs")
        let server = try server(scratch)
        let first = try Curl.run(
            server.url(Self.encode), ["-T", try IsolationTests.noisePCM(scratch, 6)] + bearer("alice")
        ).json
        #expect(first["state"] as? String == "succeeded", "\(first)")

        // 2.1 MB stored, 0.5 MB of input fits, 0.5 MB more of output does not.
        let over = try Curl.run(
            server.url(Self.encode),
            ["-T", try IsolationTests.noisePCM(scratch, 3, name: "short.pcm")] + bearer("alice")
        ).json
        #expect(over["state"] as? String == "failed", "\(over)")
        let error = over["error"] as? [String: Any]
        #expect(error?["code"] as? String == "quota_exceeded", "\(over)")
        #expect((over["outputs"] as? [Any])?.isEmpty == true)
        let id = try #require(over["id"] as? String)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs").isEmpty)

        let decode = try Curl.run(
            server.url("/jobs/decode?format=y4m&wait=60"),
            ["-T", try OutputAllowanceTests.black2160p()] + bearer("alice")
        ).json
        let refusal = decode["error"] as? [String: Any]
        #expect(refusal?["code"] as? String == "quota_exceeded", "\(decode)")
        let message = refusal?["message"] as? String ?? ""
        #expect(message.contains("refused before decoding"), "\(message)")
    }
}
