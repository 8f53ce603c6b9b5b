import Foundation
import MediadClient
import NIOCore
import ObjectStorage
import Synchronization
import TestSupport
import Testing

/// `S3Client` against a real S3 server (SeaweedFS through `TestSupport.SeaweedFS`), with boto3 and curl as the oracles:
/// objects stored and read back byte for byte under awkward keys, ranges, streams, presigned URLs, and
/// the store's refusals as typed errors that are not retried.
@Suite struct S3ClientTests {
    static let keys = ["plain.bin", "a b.bin", "ünïcode/ファイル.bin", "plus+sign.bin", "percent%20literal.bin"]

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededBytes(seed: seed)
        return generator.next(count: count)
    }

    @Test func objectsRoundTripUnderAwkwardKeysWithTheirSHA256() async throws {
        let s3 = try SeaweedFS()
        let client = try s3.client(prefix: "round/trip")
        for (index, key) in Self.keys.enumerated() {
            let body = Self.bytes(10_000 + index, seed: UInt64(index))
            let hash = SigV4Signer.sha256Hex(body)
            let etag = try await client.putObject(key, body: .bytes(body), contentType: "video/mp4", sha256Hex: hash)
            let stored = try s3.read("round/trip/" + key)
            #expect(stored["sha256"] as? String == hash, "\(key)")
            #expect(stored["size"] as? Int == body.count, "\(key)")
            #expect(stored["content_type"] as? String == "video/mp4", "\(key)")
            let info = try #require(try await client.headObject(key))
            #expect(info == S3Client.ObjectInfo(size: Int64(body.count), etag: etag, contentType: "video/mp4"))
            #expect(try await client.getObject(key) == body, "\(key)")
            try await client.deleteObject(key)
            #expect(try await client.headObject(key) == nil, "\(key)")
        }
    }

    @Test func aFileBodyWithoutAHashAndRangedGetsCollectedAndStreamed() async throws {
        let s3 = try SeaweedFS()
        let client = try s3.client(prefix: "ranges")
        let body = Self.bytes(300_000, seed: 7)
        let file = try s3.scratch.write("body.bin", body)
        try await client.putObject("file.bin", body: .file(file))
        #expect(try s3.read("ranges/file.bin")["sha256"] as? String == SigV4Signer.sha256Hex(body))
        #expect(try await client.getObject("file.bin", range: 1000...1999) == Array(body[1000...1999]))
        let streamed = Mutex<[UInt8]>([])
        let info = try await client.getObject("file.bin", range: 250_000...299_999) { chunk in
            streamed.withLock { $0 += chunk.readableBytesView }
        }
        #expect(info.size == 50_000)
        #expect(streamed.withLock { $0 } == Array(body[250_000...299_999]))
        let error = await #expect(throws: S3Error.self) { try await client.getObject("file.bin", maxBody: 1000) }
        #expect(error?.code == "ResponseTooLarge")
    }

    @Test func refusalsAreTypedAndNotRetriedAndPresignedURLsWork() async throws {
        let s3 = try SeaweedFS()
        let client = try s3.client(prefix: "refusals", attempts: 4)
        let missing = await #expect(throws: S3Error.self) { try await client.getObject("nothing-here.bin") }
        #expect(missing?.code == "NoSuchKey")
        #expect(missing?.status == 404)
        #expect(missing?.attempts == 1)

        var wrong = SeaweedFS.credentials
        wrong.secretAccessKey += "x"
        let impostor = try s3.client(prefix: "refusals", credentials: wrong, attempts: 4)
        let refused = await #expect(throws: S3Error.self) { try await impostor.putObject("x.bin", body: .bytes([1])) }
        #expect(refused?.code == "SignatureDoesNotMatch")
        #expect(refused?.status == 403)
        #expect(refused?.attempts == 1)

        let body = Self.bytes(5000, seed: 3)
        try await client.putObject("shared file+1.bin", body: .bytes(body))
        let url = try client.presignedGET("shared file+1.bin", expires: 600)
        let fetched = s3.scratch.file("fetched.bin")
        try Command.run("curl", ["-sSf", "-o", fetched, url])
        #expect(FileManager.default.contents(atPath: fetched) == Data(body))
        let tampered = url.replacingOccurrences(of: "shared%20file", with: "shared%20filf")
        let output = try Command.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", tampered])
        #expect(output.text == "403")
    }

    @Test func aRefusedConnectionIsRetriedTheBoundedNumberOfTimes() async throws {
        let port = try Command.run(
            "python3",
            ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
        let location = try S3Location(objects: "s3://mediad", endpoint: "http://127.0.0.1:\(port)", pathStyle: true)
        let client = S3Client(
            location: location, credentials: SeaweedFS.credentials, http: try HTTPClient(),
            retry: S3RetryPolicy(attempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2)))
        let error = await #expect(throws: S3Error.self) { try await client.headObject("a.bin") }
        #expect(error?.code == "ConnectionFailed")
        #expect(error?.status == nil)
        #expect(error?.attempts == 3)
        #expect(error?.description.contains("Connection refused") == true, "\(String(describing: error))")
    }
}
