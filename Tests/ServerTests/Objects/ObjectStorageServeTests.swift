import Foundation
import Synchronization
import TestSupport
import Testing

/// `serve --objects` against a real S3 server (SeaweedFS), with boto3 and curl as the oracles: outputs in
/// the bucket before the job succeeds, downloads by `302` to the store or proxied with `Range`, objects gone
/// with the job, a store that cannot be used refused at start with one line, and a store gone while a job
/// ends failing that job with `storage_unavailable` and submissions refused (503) until it answers again.
@Suite(.serialized) struct ObjectStorageServeTests {
    /// The `--objects` flags of a server on `s3`'s bucket under `prefix`.
    static func objectFlags(_ s3: SeaweedFS, prefix: String = "media") -> [String] {
        ["--objects", "s3://\(SeaweedFS.bucket)/\(prefix)", "--s3-endpoint", s3.endpoint, "--s3-path-style"]
    }

    static func sha256(_ file: String) throws -> String {
        String(try Command.run("sha256sum", [file]).text.prefix(64))
    }

    @Test func outputsAreInTheBucketAndDownloadsRedirectOrProxyAndDeleteRemovesThem() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-serve")
        let server = try ServerProcess(Self.objectFlags(s3), environment: SeaweedFS.credentialsEnvironment)
        let input = try Fixtures.h264AacMP4()
        let job = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let id = try #require(job["id"] as? String)
        let output = try #require((job["outputs"] as? [[String: Any]])?.first)
        let name = try #require(output["name"] as? String)
        let sha256 = try #require(output["sha256"] as? String)
        let size = try #require(output["size"] as? Int)
        #expect(output["url"] as? String == "/jobs/\(id)/outputs/\(name)")
        #expect(
            !String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self).contains("media/jobs"))

        // The object is in the bucket with the recorded size and SHA-256, as boto3 reads it.
        let key = "media/jobs/\(id)/runs/1/outputs/\(name)"
        let stored = try s3.read(key)
        #expect(stored["sha256"] as? String == sha256)
        #expect(stored["size"] as? Int == size)
        #expect(stored["content_type"] as? String == "video/x-matroska")
        #expect(try s3.list("media/mediad-probe/").objects.isEmpty, "the start-up probe object is deleted")

        // Without -L: 302 to a presigned GET on the store's endpoint; with -L, exactly the bytes.
        let redirect = try Curl.run(server.url("/jobs/\(id)/outputs/\(name)"))
        #expect(redirect.status == 302, "\(redirect.text)")
        let location = try #require(redirect.headers["location"])
        #expect(location.hasPrefix(s3.endpoint + "/mediad/media/jobs/\(id)/runs/1/outputs/"), "\(location)")
        #expect(location.contains("X-Amz-Signature=") && location.contains("X-Amz-Expires=300"), "\(location)")
        let followed = try Curl.run(server.url("/jobs/\(id)/output"), ["-L"])
        #expect(followed.status == 200)
        let file = scratch.file("followed.mkv")
        try followed.body.write(to: URL(fileURLWithPath: file))
        #expect(try Self.sha256(file) == sha256)

        // DELETE of the job removes its objects.
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 204)
        let left = try s3.list("media/jobs/\(id)/")
        #expect(left.objects.isEmpty && left.uploads.isEmpty, "\(left)")
    }

    @Test func theProxyStreamsTheObjectWithRangesAndPreconditions() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            Self.objectFlags(s3, prefix: "proxied") + ["--objects-proxy"], environment: SeaweedFS.credentialsEnvironment
        )
        let input = try Fixtures.h264AacMP4()
        let job = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let id = try #require(job["id"] as? String)
        let output = try #require((job["outputs"] as? [[String: Any]])?.first)
        let sha256 = try #require(output["sha256"] as? String)
        let size = try #require(output["size"] as? Int)
        let url = server.url("/jobs/\(id)/outputs/\(output["name"] as? String ?? "")")

        let whole = try Curl.run(url)
        #expect(whole.status == 200)
        #expect(whole.body.count == size)
        #expect(whole.headers["etag"] == "\"\(sha256)\"")
        let slice = try Curl.run(url, ["-H", "Range: bytes=100-1099"])
        #expect(slice.status == 206)
        #expect(slice.headers["content-range"] == "bytes 100-1099/\(size)")
        #expect(slice.body == whole.body.subdata(in: 100..<1100))
        let unchanged = try Curl.run(url, ["-H", "If-None-Match: \"\(sha256)\""])
        #expect(unchanged.status == 304)
        #expect(try Curl.run(url, ["-H", "Range: bytes=\(size + 10)-"]).status == 416)
    }

    /// `outputs.tar`, every file of a package tree and the job's log come from the bucket, not from the data
    /// directory of the replica that ran the job: with that job's local outputs and log removed (scratch
    /// lost), the log still reads, the archive still
    /// holds every output with its recorded SHA-256 (Python's tarfile reads it), and a segment's URL still
    /// answers with a redirect to its object.
    @Test func theArchivePackageFilesAndLogComeFromTheBucket() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-archive")
        let server = try ServerProcess(
            Self.objectFlags(s3, prefix: "tree"), environment: SeaweedFS.credentialsEnvironment)
        let reply = try Curl.run(
            server.url("/jobs/package?wait=60&format=hls&segment_duration=1"), ["-T", try Fixtures.h264AacMP4()])
        #expect(reply.json["state"] as? String == "succeeded", "\(reply.text)")
        let id = try #require(reply.json["id"] as? String)
        let outputs = try #require(reply.json["outputs"] as? [[String: Any]])
        #expect(outputs.count > 3, "\(outputs)")
        try FileManager.default.removeItem(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        try FileManager.default.removeItem(atPath: server.dataDirectory + "/jobs/\(id)/job.log")
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("storing \(outputs.count) outputs") && log.contains("succeeded"), "\(log)")

        let archive = try Curl.run(server.url("/jobs/\(id)/outputs.tar"))
        #expect(archive.status == 200)
        let file = try scratch.write("outputs.tar", Array(archive.body))
        let listing = try Command.run(
            "python3",
            [
                "-c",
                "import hashlib, json, sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n print(json.dumps({m.name: hashlib.sha256(t.extractfile(m).read()).hexdigest() for m in t.getmembers()}))",
                file,
            ])
        let members = try JSONSerialization.jsonObject(with: listing.stdout) as? [String: String] ?? [:]
        var expected: [String: String] = [:]
        for output in outputs {
            if let name = output["name"] as? String { expected[name] = output["sha256"] as? String }
        }
        #expect(members == expected)

        let segment = try #require(
            outputs.compactMap { $0["name"] as? String }.first { $0.hasSuffix(".ts") || $0.hasSuffix(".m4s") })
        let followed = try Curl.run(server.url("/jobs/\(id)/outputs/\(segment)"), ["-L"])
        #expect(followed.status == 200)
        #expect(followed.body.count == outputs.first { $0["name"] as? String == segment }?["size"] as? Int)
    }

    /// Retention removes an expired job's objects with the job: once the job is gone (404), its prefix
    /// empties.
    @Test func retentionRemovesTheObjects() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            Self.objectFlags(s3, prefix: "kept") + ["--retention", "1s"], environment: SeaweedFS.credentialsEnvironment)
        let job = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let id = try #require(job["id"] as? String)
        var status = 200
        for _ in 0..<600 where status != 404 {
            status = try Curl.run(server.url("/jobs/\(id)")).status
            if status != 404 { usleep(100_000) }
        }
        #expect(status == 404, "retention never deleted job \(id)")
        // The sweep takes the job out of the index, then removes its directory and its objects.
        var left = try s3.list("kept/jobs/\(id)/")
        for _ in 0..<100 where !left.objects.isEmpty || !left.uploads.isEmpty {
            usleep(100_000)
            left = try s3.list("kept/jobs/\(id)/")
        }
        #expect(left.objects.isEmpty && left.uploads.isEmpty, "\(left)")
    }

    /// A store that cannot be used stops `serve` before it listens: one line naming why, exit status 1; an
    /// `--objects` that is no S3 location is a usage error (64).
    @Test func aStoreThatCannotBeUsedIsOneLineAtStart() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-refused")
        func serve(_ objects: String, endpoint: String, secret: String = SeaweedFS.secretAccessKey) throws
            -> Command.Output
        {
            try Command.run(
                "/usr/bin/env",
                [
                    "AWS_ACCESS_KEY_ID=\(SeaweedFS.accessKeyID)", "AWS_SECRET_ACCESS_KEY=\(secret)",
                    ServerProcess.binary, "serve", "--port", "0", "--data-dir", scratch.file("data"), "--objects",
                    objects, "--s3-endpoint", endpoint, "--s3-path-style",
                ], allowFailure: true)
        }
        let closed = try PostgresServer.freePort()
        let cases: [(String, String, String, Int32, String)] = [
            ("s3://mediad/x", s3.endpoint, SeaweedFS.secretAccessKey + "wrong", 1, "objects_access_denied"),
            ("s3://no-such-bucket/x", s3.endpoint, SeaweedFS.secretAccessKey, 1, "objects_bucket_missing"),
            ("s3://mediad/x", "http://127.0.0.1:\(closed)", SeaweedFS.secretAccessKey, 1, "objects_unreachable"),
            ("http://mediad/x", s3.endpoint, SeaweedFS.secretAccessKey, 64, "invalid_objects"),
        ]
        for (objects, endpoint, secret, status, code) in cases {
            let output = try serve(objects, endpoint: endpoint, secret: secret)
            #expect(output.status == status, "\(objects) at \(endpoint): \(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.first?.contains(code) == true, "\(objects) at \(endpoint): \(output.stderr)")
            #expect(!output.stderr.contains(secret), "the secret is never printed: \(output.stderr)")
            if status == 1 { #expect(lines.count == 1, "\(objects): \(output.stderr)") }
        }
    }

    /// The store gone while a job's run ends: the outputs cannot go up within the retry window (1 s here), so
    /// the job fails with `storage_unavailable` and lists no output.
    @Test func aStoreGoneWhenAJobEndsFailsItWithStorageUnavailable() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            Self.objectFlags(s3, prefix: "outage") + ["--workers", "1", "--s3-retry-window", "1s"],
            environment: SeaweedFS.credentialsEnvironment)
        let (id, worker) = try IsolationTests.heldWorker(
            server, ["-T", try Fixtures.h264AacMP4()], submitting: "/jobs/remux?format=mkv")
        s3.stop()
        kill(worker, SIGCONT)
        let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "storage_unavailable", "\(job)")
        #expect((job["outputs"] as? [Any])?.isEmpty == true, "\(job)")
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("the run ended well, but the job failed: storage_unavailable"), "\(log)")
        #expect(try Curl.run(server.url("/jobs/\(id)/output")).status == 409)

        // While the store does not answer, a submission is refused before its body is taken.
        let refused = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()])
        #expect(refused.status == 503, "\(refused.text)")
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "storage_unavailable")
        #expect(refused.headers["retry-after"] == "5")

        // Once it answers again, the server notices (it asks every 2 s) and takes jobs.
        try s3.restart()
        var accepted = refused
        for _ in 0..<300 where accepted.status == 503 {
            usleep(100_000)
            accepted = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()])
        }
        #expect(accepted.status == 202, "\(accepted.text)")
        let next = try #require(accepted.json["id"] as? String)
        let done = try Curl.run(server.url("/jobs/\(next)?wait=120")).json
        #expect(done["state"] as? String == "succeeded", "\(done)")
        #expect(try Curl.run(server.url("/jobs/\(next)/output"), ["-L"]).status == 200)
    }

    /// A cancel that comes while a job's outputs go up to the bucket (the store held with SIGSTOP, so the
    /// upload waits) is taken once the upload ends: the job ends `cancelled`, its inputs and outputs removed
    /// from the bucket (its log stays there until the job is deleted).
    @Test func aCancelDuringTheOutputsUploadEndsTheJobCancelledAndRemovesTheObjects() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            Self.objectFlags(s3, prefix: "cancel") + ["--workers", "1"], environment: SeaweedFS.credentialsEnvironment)
        let (id, worker) = try IsolationTests.heldWorker(
            server, ["-T", try Fixtures.h264AacMP4()], submitting: "/jobs/remux?format=mkv")
        let weed = try s3.weedPID()
        kill(weed, SIGSTOP)
        defer { kill(weed, SIGCONT) }
        kill(worker, SIGCONT)
        var log = ""
        for _ in 0..<1200 where !log.contains("in the bucket") {
            usleep(50_000)
            log = try Curl.run(server.url("/jobs/\(id)/log")).text
        }
        #expect(log.contains("storing 1 outputs"), "\(log)")
        // DELETE answers once the job has ended, so it goes from another thread while the store is held.
        let answer = Mutex<(status: Int, state: String?)>((0, nil))
        let answered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let reply = try? Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
            answer.withLock { $0 = (reply?.status ?? 0, reply?.json["state"] as? String) }
            answered.signal()
        }
        for _ in 0..<1200 where !log.contains("cancel requested") {
            usleep(50_000)
            log = try Curl.run(server.url("/jobs/\(id)/log")).text
        }
        #expect(log.contains("cancel requested"), "\(log)")
        #expect(try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String == "running")
        kill(weed, SIGCONT)
        #expect(answered.wait(timeout: .now() + 180) == .success)
        #expect(answer.withLock { $0.status } == 200)
        #expect(answer.withLock { $0.state } == "cancelled")
        let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
        #expect(job["state"] as? String == "cancelled", "\(job)")
        // What stays is the log of the ended job, which the bucket keeps until the job is deleted.
        let left = try s3.list("cancel/jobs/\(id)/")
        #expect(left.objects == ["cancel/jobs/\(id)/runs/1/job.log"] && left.uploads.isEmpty, "\(left)")
        #expect(try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 204)
        #expect(try s3.list("cancel/jobs/\(id)/").objects.isEmpty)
    }
}
