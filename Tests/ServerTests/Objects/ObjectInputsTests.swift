import Foundation
import TestSupport
import Testing

/// `serve --objects` keeps job inputs in the bucket too (SeaweedFS, boto3 as the oracle): a body goes up
/// while it arrives (a multipart upload past 8 MiB), a cut body leaves no object and no upload, a replica
/// with its own data directory runs a job another replica received, and a job whose scratch directory was
/// lost stages its input again, checked against its SHA-256.
@Suite(.serialized) struct ObjectInputsTests {
    /// About 20 MiB of H.264 (lossless noise): an input of three multipart parts.
    static func largeMP4() throws -> String {
        try Fixtures.make(
            "noise_lossless.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=1.5", "-vf", "noise=alls=60:allf=t",
                "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-f", "mp4",
            ])
    }

    /// Raw and multipart bodies: each job's input is in the bucket with the SHA-256 the job recorded
    /// before the job is answered.
    @Test func uploadedInputsAreInTheBucket() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: "in"), environment: SeaweedFS.credentialsEnvironment)
        let small = try Fixtures.h264AacMP4()
        let large = try Self.largeMP4()
        let submissions: [(String, [String])] = [
            (small, ["-T", small]), (large, ["-T", large]), (small, ["-F", "file=@\(small)"]),
        ]
        for (file, arguments) in submissions {
            let reply = try Curl.run(server.url("/jobs/remux?format=mkv"), arguments)
            #expect([200, 202].contains(reply.status), "\(reply.text)")
            let id = try #require(reply.json["id"] as? String, "\(reply.text)")
            let stored = try s3.read("in/jobs/\(id)/inputs/input")
            #expect(stored["sha256"] as? String == (try ObjectStorageServeTests.sha256(file)), "\(arguments)")
            let ended = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
        }
        #expect(try s3.list("in/jobs/").uploads.isEmpty, "no multipart upload is left open")
    }

    /// Inputs that do not arrive as a submission's body are put whole: a tus upload whose metadata names a
    /// kind before its job is queued, a URL input (with the job's `egress.json`, there from the answer on)
    /// once fetched.
    @Test func tusAndURLInputsAreInTheBucket() throws {
        let s3 = try SeaweedFS()
        let files = try InputURLTests.Files()
        let server = try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: "whole") + ["--egress-allow", "127.0.0.1"],
            environment: SeaweedFS.credentialsEnvironment)
        let input = try Fixtures.h264AacMP4()
        let sha256 = try ObjectStorageServeTests.sha256(input)
        let size = try Data(contentsOf: URL(fileURLWithPath: input)).count

        let created = try Tus.create(
            server, length: size, metadata: "kind \(Tus.base64("remux")),format \(Tus.base64("mkv"))")
        let location = try #require(created.headers["location"], "\(created.text)")
        let patched = try Tus.patch(server, location, offset: 0, file: input)
        #expect(patched.status == 204, "\(patched.text)")
        let tusJob = try #require(
            patched.headers["mediad-job"]?.replacingOccurrences(of: "/jobs/", with: ""), "\(patched.headers)")
        #expect(try s3.read("whole/jobs/\(tusJob)/inputs/input")["sha256"] as? String == sha256)

        let reply = try Curl.run(
            server.url("/jobs/remux?format=mkv"),
            ["-X", "POST", "--url-query", "input_url=\(files.url("/talk.mp4"))"])
        let urlJob = try #require(reply.json["id"] as? String, "\(reply.text)")
        #expect(try s3.list("whole/jobs/\(urlJob)/").objects.contains("whole/jobs/\(urlJob)/egress.json"))
        for id in [tusJob, urlJob] {
            let ended = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
        }
        #expect(try s3.read("whole/jobs/\(urlJob)/inputs/input")["sha256"] as? String == sha256)
    }

    /// A store gone while a body arrives: the submission is answered 503 `storage_unavailable` and makes no
    /// job.
    @Test func aStoreGoneWhileABodyArrivesIsStorageUnavailable() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: "gone"), environment: SeaweedFS.credentialsEnvironment)
        s3.stop()
        let reply = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()])
        #expect(reply.status == 503, "\(reply.text)")
        #expect(reply.errorCode == "storage_unavailable", "\(reply.text)")
        let jobs = try Curl.run(server.url("/jobs")).json["jobs"] as? [Any]
        #expect(jobs?.isEmpty == true, "no job was made: \(jobs ?? [])")
    }

    /// A body cut after 12 of its 32 MiB: its multipart upload was under way while the body arrived, and
    /// once the connection is gone neither an object nor an upload is left, and no job was made.
    @Test func aCutBodyLeavesNoObjectAndNoUpload() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-cut")
        let server = try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: "cut"), environment: SeaweedFS.credentialsEnvironment)
        let marker = scratch.file("cut-now")
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        client.arguments = [
            "-c",
            """
            import os, socket, time
            s = socket.create_connection(("127.0.0.1", \(server.port)), timeout=120)
            s.sendall(b"PUT /jobs/remux?format=mkv HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 33554432\\r\\n\\r\\n")
            for _ in range(12):
                s.sendall(bytes(1 << 20))
            for _ in range(2400):
                if os.path.exists("\(marker)"):
                    break
                time.sleep(0.05)
            s.close()
            """,
        ]
        try client.run()
        var listing = try s3.list("cut/jobs/")
        for _ in 0..<600 where listing.uploads.isEmpty {
            usleep(100_000)
            listing = try s3.list("cut/jobs/")
        }
        #expect(listing.uploads.count == 1, "the body's multipart upload starts while it arrives: \(listing)")
        #expect(listing.objects.isEmpty, "\(listing)")
        #expect(FileManager.default.createFile(atPath: marker, contents: nil))
        client.waitUntilExit()
        for _ in 0..<600 where !listing.uploads.isEmpty || !listing.objects.isEmpty {
            usleep(100_000)
            listing = try s3.list("cut/jobs/")
        }
        #expect(listing.uploads.isEmpty && listing.objects.isEmpty, "the cut body left \(listing)")
        let jobs = try Curl.run(server.url("/jobs")).json["jobs"] as? [Any]
        #expect(jobs?.isEmpty == true, "no job was made: \(jobs ?? [])")
    }

    /// Two replicas on one database and one bucket, each with its own data directory: a job submitted to
    /// the one whose worker is busy runs on the other, which stages the input from the bucket (whole before
    /// the worker starts, with `--objects-stage-whole`); both serve the output with the recorded SHA-256.
    @Test func aReplicaWithItsOwnDataDirectoryRunsAJobAnotherReceived() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-replicas")
        func replica(_ name: String, _ extra: [String] = []) throws -> ServerProcess {
            try ServerProcess(
                dataDirectory: scratch.file("data-\(name)"),
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", name, "--workers", "1",
                    "--lease-ttl", "6s", "--heartbeat", "0.5s",
                ] + ObjectStorageServeTests.objectFlags(s3, prefix: "shared") + extra,
                environment: SeaweedFS.credentialsEnvironment)
        }
        let a = try replica("a")
        defer { a.stop() }
        // A's only worker is held on a job of its own before B exists, so B takes the next job.
        let (held, worker) = try IsolationTests.heldWorker(
            a, ["-T", try Fixtures.h264AacMP4()], submitting: "/jobs/remux?format=mkv")
        defer { kill(worker, SIGCONT) }
        let b = try replica("b", ["--objects-stage-whole"])
        defer { b.stop() }

        let input = try Self.largeMP4()
        let reply = try Curl.run(a.url("/jobs/remux?format=mkv"), ["-T", input])
        let id = try #require(reply.json["id"] as? String, "\(reply.text)")
        let ended = try DatabaseReplicaTests.job(b, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        #expect(ended["replica"] as? String == "b", "\(ended)")
        let log = try Curl.run(b.url("/jobs/\(id)/log")).text
        #expect(log.contains("staged input input from the bucket"), "\(log)")
        #expect(!log.contains("while the job runs"), "staged whole before the run: \(log)")
        #expect(
            FileManager.default.fileExists(atPath: scratch.file("data-b/jobs/\(id)/inputs/input")),
            "B ran the job from its own data directory")

        let output = try #require((ended["outputs"] as? [[String: Any]])?.first)
        let sha256 = try #require(output["sha256"] as? String)
        for (name, server) in [("a", a), ("b", b)] {
            let fetched = try Curl.run(server.url("/jobs/\(id)/output"), ["-L"])
            #expect(fetched.status == 200, "from \(name)")
            let file = scratch.file("from-\(name).mkv")
            try fetched.body.write(to: URL(fileURLWithPath: file))
            #expect(try ObjectStorageServeTests.sha256(file) == sha256, "the output fetched from \(name)")
        }
        kill(worker, SIGCONT)
        #expect(try DatabaseReplicaTests.job(a, held, wait: 120)["state"] as? String == "succeeded")
    }

    /// Queued jobs whose scratch directories were removed: one stages its input from the bucket and runs;
    /// one whose object was replaced by another file fails `input_object_mismatch` and does not run it.
    @Test func aJobWhoseScratchDirectoryWasLostIsStagedAgain() throws {
        let s3 = try SeaweedFS()
        let server = try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: "lost") + ["--workers", "1"],
            environment: SeaweedFS.credentialsEnvironment)
        let input = try Fixtures.h264AacMP4()
        let (_, worker) = try IsolationTests.heldWorker(server, ["-T", input], submitting: "/jobs/remux?format=mkv")
        defer { kill(worker, SIGCONT) }
        let ids = try (0..<2).map { _ in
            try #require(try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input]).json["id"] as? String)
        }
        for id in ids {
            try FileManager.default.removeItem(atPath: server.dataDirectory + "/jobs/\(id)")
        }
        try s3.upload(try Fixtures.wav(), as: "lost/jobs/\(ids[1])/inputs/input")
        kill(worker, SIGCONT)

        let staged = try Curl.run(server.url("/jobs/\(ids[0])?wait=120")).json
        #expect(staged["state"] as? String == "succeeded", "\(staged)")
        let log = try Curl.run(server.url("/jobs/\(ids[0])/log")).text
        #expect(log.contains("staged input input from the bucket"), "\(log)")
        let mismatched = try Curl.run(server.url("/jobs/\(ids[1])?wait=120")).json
        #expect(mismatched["state"] as? String == "failed", "\(mismatched)")
        let error = mismatched["error"] as? [String: Any]
        #expect(error?["code"] as? String == "input_object_mismatch", "\(mismatched)")
    }
}
