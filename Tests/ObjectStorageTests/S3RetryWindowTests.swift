import Foundation
import Logging
import MediadClient
import ObjectStorage
import Synchronization
import TestSupport
import Testing

/// The retry window of `S3Client`: a request is sent again, with backoff and jitter, until the window has
/// passed since its first send and never after it; a refusal is never sent again however long the window;
/// and a store that stops and comes back within the window (SeaweedFS killed and restarted on its ports and
/// data) costs a multipart upload that time, not its failure.
@Suite struct S3RetryWindowTests {
    @Test func noWaitReachesPastTheWindowAndNoneFollowsIt() {
        let policy = S3RetryPolicy(window: .seconds(1), baseDelay: .milliseconds(100), maxDelay: .milliseconds(400))
        for failed in 1...8 {
            for _ in 0..<50 {
                let wait = policy.wait(afterAttempt: failed, elapsed: .milliseconds(900))
                #expect(wait.map { $0 <= .milliseconds(100) } == true, "\(String(describing: wait))")
                let early = policy.wait(afterAttempt: failed, elapsed: .zero)
                #expect(early.map { $0 <= .milliseconds(400) } == true, "\(String(describing: early))")
            }
        }
        #expect(policy.wait(afterAttempt: 1, elapsed: .seconds(1)) == nil)
        #expect(policy.wait(afterAttempt: 50, elapsed: .seconds(3)) == nil)
        #expect(S3RetryPolicy(window: .zero).wait(afterAttempt: 1, elapsed: .zero) == nil)
        // A bound on the sends ends the retries inside the window too.
        let counted = S3RetryPolicy(window: .seconds(60), attempts: 3)
        #expect(counted.wait(afterAttempt: 2, elapsed: .zero) != nil)
        #expect(counted.wait(afterAttempt: 3, elapsed: .zero) == nil)
    }

    /// Nothing listens: the request goes on being sent until its window has passed, not less, then fails
    /// with the number of attempts it made, and the store counts as unreachable.
    @Test func aStoreThatStaysDownFailsTheRequestOnceTheWindowHasPassed() async throws {
        let port = try PostgresServer.freePort()
        let location = try S3Location(objects: "s3://mediad", endpoint: "http://127.0.0.1:\(port)", pathStyle: true)
        let client = S3Client(
            location: location, credentials: SeaweedFS.credentials, http: try HTTPClient(),
            retry: S3RetryPolicy(window: .seconds(3), baseDelay: .milliseconds(5), maxDelay: .milliseconds(40)))
        let start = ContinuousClock.now
        let error = await #expect(throws: S3Error.self) { try await client.putObject("a.bin", body: .bytes([1])) }
        #expect(ContinuousClock.now - start >= .seconds(3))
        #expect(error?.code == "ConnectionFailed")
        // How many attempts fit in the window is the scheduler's business (a loaded pool runs this task
        // late), so it is only reported: the multipart test below shows the retries themselves.
        #expect((error?.attempts ?? 0) >= 1, "\(String(describing: error))")
        #expect(!client.reachability.isReachable)
    }

    /// A missing key, a missing bucket, wrong keys and a malformed request are the store's answer, not its
    /// trouble: one attempt each, though the window is a minute.
    @Test func refusalsAreSentOnceWhateverTheWindow() async throws {
        let s3 = try SeaweedFS()
        func client(_ bucket: String, secret: String = SeaweedFS.secretAccessKey) throws -> S3Client {
            S3Client(
                location: try S3Location(objects: "s3://\(bucket)/refused", endpoint: s3.endpoint, pathStyle: true),
                credentials: SigningCredentials(accessKeyID: SeaweedFS.accessKeyID, secretAccessKey: secret),
                http: try HTTPClient(), retry: S3RetryPolicy(window: .seconds(60)))
        }
        let missing = await #expect(throws: S3Error.self) { try await client("mediad").getObject("none.bin") }
        #expect(missing?.status == 404 && missing?.attempts == 1, "\(String(describing: missing))")
        // A listing, not a PUT: SeaweedFS makes a missing bucket on an admin's first PUT.
        let noBucket = await #expect(throws: S3Error.self) { try await client("no-such-bucket").listObjects() }
        #expect(noBucket?.code == "NoSuchBucket" && noBucket?.attempts == 1, "\(String(describing: noBucket))")
        let denied = await #expect(throws: S3Error.self) {
            try await client("mediad", secret: "wrong").putObject("a.bin", body: .bytes([1]))
        }
        #expect(denied?.status == 403 && denied?.attempts == 1, "\(String(describing: denied))")
        let tooSmall = await #expect(throws: S3Error.self) {
            let refused = try client("mediad")
            let id = try await refused.createMultipartUpload("small.bin")
            let parts = [
                try await refused.uploadPart("small.bin", uploadID: id, number: 1, body: .bytes([1])),
                try await refused.uploadPart("small.bin", uploadID: id, number: 2, body: .bytes([2])),
            ]
            try await refused.completeMultipartUpload("small.bin", uploadID: id, parts: parts)
        }
        #expect(tooSmall?.status == 400 && tooSmall?.attempts == 1, "\(String(describing: tooSmall))")
    }

    /// Part 1 goes up, the store is killed, part 2 is retried (the client says so in its log) until the
    /// store is back on its ports and data; the upload completes with the bytes sent, as boto3 reads them.
    @Test func aMultipartUploadRidesOutARestartOfTheStore() async throws {
        let s3 = try SeaweedFS()
        let log = RecordedLog()
        var client = try s3.client(prefix: "outage")
        client.retry = S3RetryPolicy(window: .seconds(600), baseDelay: .milliseconds(20), maxDelay: .milliseconds(500))
        client.logger = Logger(label: "test") { _ in log }
        let parts = [S3ClientTests.bytes(5 << 20, seed: 7), S3ClientTests.bytes(4321, seed: 8)]
        let id = try await client.createMultipartUpload("ridden.bin")
        let first = try await client.uploadPart("ridden.bin", uploadID: id, number: 1, body: .bytes(parts[0]))
        s3.stop()
        let second = Task { [client] in
            try await client.uploadPart("ridden.bin", uploadID: id, number: 2, body: .bytes(parts[1]))
        }
        for _ in 0..<1200 where !log.contains("retrying for up to 600s") {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(log.contains("PUT part 2 of ridden.bin"), "\(log.lines)")
        try s3.restart()
        let part = try await second.value
        try await client.completeMultipartUpload("ridden.bin", uploadID: id, parts: [first, part])
        #expect(log.contains("PUT part 2 of ridden.bin: the object store took it after"), "\(log.lines)")
        let read = try s3.read("outage/ridden.bin")
        #expect(read["sha256"] as? String == SigV4Signer.sha256Hex(parts[0] + parts[1]))
        #expect(try await client.listMultipartUploads().isEmpty)
    }
}

/// A log handler that keeps every message, for tests that wait for what the client says.
final class RecordedLog: LogHandler, @unchecked Sendable {
    // The messages are behind a Mutex; metadata and level are set once, before use, by swift-log.
    private let messages = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.withLock { $0.append("\(event.message)") }
    }

    var lines: [String] { messages.withLock { $0 } }

    func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }
}
