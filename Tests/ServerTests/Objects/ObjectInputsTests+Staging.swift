import Foundation
import TestSupport
import Testing

/// Staging an input from the bucket while the job's worker already reads it: replica B reaches the store
/// through `s3_gate.py`, which holds the input's GET partway, so what B does meanwhile is seen without
/// timing. The worker runs while the GET is held (a `moov` at the end waits for it), the output is the one
/// of a run on the whole file, a GET cut midway resumes (or fails `storage_unavailable` when the store
/// stays gone) and an object of other bytes fails `input_object_mismatch`, leaving no output.
extension ObjectInputsTests {
    /// Replica A on the database and the store, its only worker held so that replica B runs the jobs
    /// submitted to A; B's store is reached through a relay that holds a GET after 4 MiB while armed.
    final class StagingReplicas {
        let postgres: PostgresServer
        let s3: SeaweedFS
        let scratch: Scratch
        let gate: PeerProcess
        let a: ServerProcess
        let worker: Int32
        private(set) var b: ServerProcess?

        init(_ name: String) throws {
            postgres = try DatabaseReplicaTests.database()
            s3 = try SeaweedFS()
            scratch = try Scratch("objects-\(name)")
            gate = try PeerProcess.script("s3_gate.py", [String(s3.port), String(4 << 20), scratch.path])
            a = try Self.replica("a", postgres, scratch, endpoint: s3.endpoint)
            (_, worker) = try IsolationTests.heldWorker(
                a, ["-T", try Fixtures.h264AacMP4()], submitting: "/jobs/remux?format=mkv")
        }

        private static func replica(_ name: String, _ postgres: PostgresServer, _ scratch: Scratch, endpoint: String)
            throws -> ServerProcess
        {
            try ServerProcess(
                dataDirectory: scratch.file("data-\(name)"),
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", name, "--workers", "1",
                    "--lease-ttl", "6s", "--heartbeat", "0.5s", "--objects", "s3://\(SeaweedFS.bucket)/staged",
                    "--s3-endpoint", endpoint, "--s3-path-style",
                ], environment: SeaweedFS.credentialsEnvironment)
        }

        /// Starts replica B, which takes the next job.
        @discardableResult
        func startB() throws -> ServerProcess {
            let started = try Self.replica("b", postgres, scratch, endpoint: "http://127.0.0.1:\(gate.port)")
            b = started
            return started
        }

        /// A job submitted to A, with `input` as its raw body.
        func submit(_ input: String) throws -> String {
            let reply = try Curl.run(a.url("/jobs/remux?format=mkv"), ["-T", input])
            return try #require(reply.json["id"] as? String, "\(reply.text)")
        }

        /// The next response over 4 MiB is held once it gets there.
        func arm() { _ = FileManager.default.createFile(atPath: scratch.file("hold"), contents: nil) }

        /// Waits until the relay holds a response; false when none came.
        func waitUntilHeld() -> Bool {
            for _ in 0..<2400 where !FileManager.default.fileExists(atPath: scratch.file("held")) { usleep(50_000) }
            return FileManager.default.fileExists(atPath: scratch.file("held"))
        }

        /// The held response goes on.
        func release() { try? FileManager.default.removeItem(atPath: scratch.file("hold")) }

        /// The log of job `id` from B, once it has `line` (or after a generous bound).
        func log(_ id: String, until line: String) throws -> String {
            var log = ""
            for _ in 0..<2400 where !log.contains(line) {
                log = try Curl.run(try #require(b).url("/jobs/\(id)/log")).text
                if !log.contains(line) { usleep(50_000) }
            }
            return log
        }

        /// Job `id`'s input file in B's data directory, if there is one.
        func stagedSize(_ id: String) -> Int64? {
            let path = scratch.file("data-b/jobs/\(id)/inputs/input")
            return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
        }

        /// The names in job `id`'s output directory on B.
        func outputsOnB(_ id: String) -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: scratch.file("data-b/jobs/\(id)/outputs"))) ?? []
        }

        deinit {
            kill(worker, SIGCONT)
            release()
            b?.stop()
            a.stop()
            postgres.shutdown()
        }
    }

    /// The top-level boxes of an MP4 file, in order.
    static func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size32 = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            let size = size32 == 1 ? data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } : size32
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }

    /// `largeMP4` with its `moov` in front (`-movflags +faststart`).
    static func faststartMP4() throws -> String {
        try Fixtures.make(
            "noise_lossless_faststart.mp4", ["-i", try largeMP4(), "-c", "copy", "-movflags", "+faststart"])
    }

    /// The frames of the output of remuxing `input` to Matroska on a server with the whole file.
    static func wholeFileFrames(_ input: String) throws -> [String] {
        let server = try ServerProcess()
        defer { server.stop() }
        let id = try #require(try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input]).json["id"] as? String)
        #expect(try Curl.run(server.url("/jobs/\(id)?wait=120")).json["state"] as? String == "succeeded")
        let file = server.dataDirectory + "/whole.mkv"
        try Curl.run(server.url("/jobs/\(id)/output")).body.write(to: URL(fileURLWithPath: file))
        return try Oracle.videoFrameHashes(file)
    }

    /// The frames of job `id`'s output, downloaded from `server`.
    static func outputFrames(_ server: ServerProcess, _ id: String, into scratch: Scratch) throws -> [String] {
        let fetched = try Curl.run(server.url("/jobs/\(id)/output"), ["-L"])
        #expect(fetched.status == 200)
        let file = scratch.file("\(id).mkv")
        try fetched.body.write(to: URL(fileURLWithPath: file))
        return try Oracle.videoFrameHashes(file)
    }

    /// The job starts on B while its input's GET is held after 4 MiB: its worker is running, the input in
    /// B's data directory is partial, and once the GET goes on the job succeeds with the frames of a run on
    /// the whole file. With the `moov` at the end the demuxer waits for the tail; with it in front it reads on.
    @Test(arguments: [false, true]) func aJobRunsWhileItsInputIsStillComingFromTheBucket(faststart: Bool) throws {
        let input = try faststart ? Self.faststartMP4() : Self.largeMP4()
        let boxes = try Self.topLevelBoxes(input).filter { $0 == "moov" || $0 == "mdat" }
        #expect(boxes == (faststart ? ["moov", "mdat"] : ["mdat", "moov"]), "\(boxes)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int64)
        let replicas = try StagingReplicas(faststart ? "staging-front" : "staging-end")
        replicas.arm()
        try replicas.startB()
        let id = try replicas.submit(input)
        #expect(replicas.waitUntilHeld(), "the input's GET reached the relay")
        let log = try replicas.log(id, until: "started in worker")
        #expect(log.contains("staging input input from the bucket while the job runs: \(size) bytes"), "\(log)")
        #expect(log.contains("started in worker"), "the worker runs while the GET is held: \(log)")
        let staged = try #require(replicas.stagedSize(id))
        #expect(staged < size, "the input is partial while the worker runs: \(staged) of \(size) bytes")
        let b = try #require(replicas.b)
        #expect(try DatabaseReplicaTests.job(b, id)["state"] as? String == "running")
        replicas.release()

        let ended = try DatabaseReplicaTests.job(b, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        #expect(ended["replica"] as? String == "b", "\(ended)")
        #expect(try replicas.log(id, until: "succeeded").contains("staged input input from the bucket: \(size) bytes"))
        #expect(replicas.stagedSize(id) == size)
        #expect(try Self.outputFrames(b, id, into: replicas.scratch) == (try Self.wholeFileFrames(input)))
    }

    /// The store is killed while the GET is held, then the relay lets what weed had sent through and the
    /// body is cut: with the store started again the GET resumes from the byte it reached (`Range`) and the
    /// job succeeds with the whole file's frames; with the store still gone the job fails
    /// `storage_unavailable` and leaves no output, on B or in the bucket.
    @Test(arguments: [true, false]) func aGETCutMidwayResumesOrFailsTheJobCleanly(restarted: Bool) throws {
        let input = try Self.largeMP4()
        let replicas = try StagingReplicas(restarted ? "cut-resumed" : "cut-failed")
        replicas.arm()
        let b = try replicas.startB()
        let id = try replicas.submit(input)
        #expect(replicas.waitUntilHeld(), "the input's GET reached the relay")
        _ = try replicas.log(id, until: "started in worker")
        replicas.s3.stop()
        if restarted { try replicas.s3.restart() }
        replicas.release()

        let ended = try DatabaseReplicaTests.job(b, id, wait: 120)
        let log = try Curl.run(b.url("/jobs/\(id)/log")).text
        if restarted {
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
            #expect(log.contains("the GET of input input was cut: resumed at byte"), "\(log)")
            #expect(try Self.outputFrames(b, id, into: replicas.scratch) == (try Self.wholeFileFrames(input)))
        } else {
            #expect(ended["state"] as? String == "failed", "\(ended)")
            #expect((ended["error"] as? [String: Any])?["code"] as? String == "storage_unavailable", "\(ended)")
            #expect(log.contains("failed: staging its input from the bucket failed: storage_unavailable"), "\(log)")
            #expect(replicas.outputsOnB(id).isEmpty, "\(replicas.outputsOnB(id))")
            #expect(replicas.stagedSize(id) == nil, "the partial input is removed")
            try replicas.s3.restart()
            let left = try replicas.s3.list("staged/jobs/\(id)/runs/")
            #expect(left.objects.allSatisfy { $0.hasSuffix("/job.log") } && left.uploads.isEmpty, "\(left)")
        }
    }

    /// The object holds other bytes of the recorded size (one flipped in the middle of `mdat`): the
    /// worker remuxes them well enough, but the SHA-256 of what was staged is not the recorded one, so the
    /// job fails `input_object_mismatch` with its outputs removed and none in the bucket.
    @Test func anObjectOfOtherBytesFailsInputObjectMismatchWithNoOutput() throws {
        let input = try Self.largeMP4()
        let replicas = try StagingReplicas("staging-mismatch")
        let id = try replicas.submit(input)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        bytes[bytes.count / 2] ^= 0x01
        let altered = replicas.scratch.file("altered.mp4")
        try bytes.write(to: URL(fileURLWithPath: altered))
        try replicas.s3.upload(altered, as: "staged/jobs/\(id)/inputs/input")
        let b = try replicas.startB()

        let ended = try DatabaseReplicaTests.job(b, id, wait: 120)
        #expect(ended["state"] as? String == "failed", "\(ended)")
        #expect((ended["error"] as? [String: Any])?["code"] as? String == "input_object_mismatch", "\(ended)")
        let log = try Curl.run(b.url("/jobs/\(id)/log")).text
        #expect(log.contains("started in worker"), "the worker ran while the input was staged: \(log)")
        #expect(log.contains("failed: staging its input from the bucket failed: input_object_mismatch"), "\(log)")
        #expect(replicas.outputsOnB(id).isEmpty, "\(replicas.outputsOnB(id))")
        #expect(replicas.stagedSize(id) == nil, "the input that is not the job's is removed")
        let left = try replicas.s3.list("staged/jobs/\(id)/runs/")
        #expect(left.objects.allSatisfy { $0.hasSuffix("/job.log") } && left.uploads.isEmpty, "\(left)")
    }
}
