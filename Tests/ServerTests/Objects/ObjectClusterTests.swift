import Foundation
import TestSupport
import Testing

/// Issue 29's test of media in object storage: three replicas on one database and one bucket, each with
/// its own data directory (no shared directory at all), 200 jobs of four kinds submitted round-robin, one
/// replica SIGKILLed while it runs jobs and its data directory deleted before it starts again on the same
/// port: every job ends once, and every output, fetched from every replica, is the one the job recorded.
@Suite(.serialized) struct ObjectClusterTests {
    static let jobs = 200
    static let leaseTTL = 10
    static let prefix = "cluster"
    /// Four kinds, each run on a second of 64x64 video in well under a second.
    static let kinds = [
        "/jobs/remux?format=mkv",
        "/jobs/transcode?format=mp4&preset=ultrafast&crf=40&audio_bitrate=32k",
        "/jobs/thumbnails?count=2&width=32",
        "/jobs/package?format=hls&segment_duration=1",
    ]

    /// One second of 64x64 15 fps H.264 (a keyframe a second) and AAC: the input of every job.
    static func tinyMovie() throws -> String {
        try Fixtures.make(
            "cluster_tiny.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=15:duration=1", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=1", "-ac", "2", "-c:v", "libx264", "-preset",
                "ultrafast", "-g", "15", "-c:a", "aac", "-b:a", "32k", "-shortest", "-f", "mp4",
            ])
    }

    /// A replica named `name` with its own data directory, on the database and the bucket.
    static func replica(_ name: String, _ postgres: PostgresServer, _ s3: SeaweedFS, data: String) throws
        -> ServerProcess
    {
        try ServerProcess(
            dataDirectory: data,
            [
                "--database", postgres.url(database: "mediad"), "--replica-id", name, "--lease-ttl",
                "\(leaseTTL)s", "--heartbeat", "0.5s", "--workers", "2", "--max-queued", "1000",
            ] + ObjectStorageServeTests.objectFlags(s3, prefix: prefix),
            environment: SeaweedFS.credentialsEnvironment)
    }

    /// The jobs the database says run on `replica` now.
    static func running(on replica: String, _ postgres: PostgresServer) throws -> [String] {
        try postgres.psql(
            "SELECT id FROM jobs WHERE state = 'running' AND holder = '\(replica)'", database: "mediad"
        ).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func threeReplicasOwnDirectoriesOneKilledEveryOutputFromEveryReplica() throws {
        let began = Date()
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-cluster")
        let movie = try Self.tinyMovie()
        let names = ["r1", "r2", "r3"]
        let replicas = try names.map { try Self.replica($0, postgres, s3, data: scratch.file("data-\($0)")) }
        defer { for replica in replicas { replica.stop(SIGKILL) } }
        let r3 = replicas[2]

        var ids: [String] = []
        func submit(_ index: Int) throws {
            ids.append(try SharedStoreTests.submit(replicas[index % 3], Self.kinds[index % 4], movie))
        }
        let beforeTheKill = Self.jobs * 2 / 3
        for index in 0..<(Self.jobs / 2) { try submit(index) }

        // r3's workers are held from the moment they appear: a job that reaches one cannot end, so once
        // the database shows it running on r3 and its worker is held, the kill cuts it short. Jobs go on
        // being submitted until both of r3's workers hold one (or two thirds of the jobs are in).
        let holder = ChildProcesses.Holder(r3.pid, command: "worker")
        func heldOnR3() throws -> [String] {
            try Self.running(on: "r3", postgres).filter { id in
                guard let worker = try IsolationTests.worker(of: r3, job: id) else { return false }
                return ChildProcesses.state(worker) == "T"
            }
        }
        var next = Self.jobs / 2
        var cut: [String] = []
        let deadline = Date().addingTimeInterval(120)
        while cut.count < 2 && (next < beforeTheKill || Date() < deadline) {
            if next < beforeTheKill {
                try submit(next)
                next += 1
            } else {
                usleep(100_000)
            }
            cut = try heldOnR3()
        }
        try #require(!cut.isEmpty, "no job ran on r3 in a held worker within 120 s")
        r3.stop(SIGKILL)
        let killedAt = Date()
        // Its workers, let go, see their server gone and kill themselves (`ServerTether`).
        holder.release(keeping: nil)
        try FileManager.default.removeItem(atPath: r3.dataDirectory)
        try r3.launch(port: r3.port)
        for index in next..<Self.jobs { try submit(index) }

        let listed = try DatabaseClusterTests.allEnded(ids, on: replicas[0], seconds: 300)
        let submitted = Date()
        #expect(Set(listed.keys) == Set(ids), "r1 lists every job, wherever it was created")
        let states = try DatabaseClusterTests.storedStates(postgres)
        #expect(Set(states.keys) == Set(ids), "the database holds exactly the jobs submitted")

        // Every job ended once, in its last run, which succeeded; the runs never overlap; the runs the kill
        // cut short were taken back and run again.
        let logs = try RunLog.database(postgres)
        #expect(logs["unparsable"] == nil, "\(logs["unparsable"]?.runs ?? [])")
        var rerun = 0
        for id in ids {
            let job = try #require(listed[id], "\(id) is not listed")
            #expect(job["state"] as? String == "succeeded" && states[id] == "succeeded", "\(id): \(job)")
            let runs = logs[id]?.runs ?? []
            let attempts = job["attempts"] as? Int ?? 0
            #expect(runs.map(\.attempt) == Array(1...max(1, attempts)), "\(id): \(attempts) attempts, runs \(runs)")
            #expect(runs.last?.replica == job["replica"] as? String, "\(id): \(runs)")
            #expect(runs.last?.outcome == "succeeded", "\(id): \(runs)")
            let recorded = (job["replica"] as? String).map { (replica: $0, attempt: attempts) }
            let problems = logs[id]?.problems(killed: "r3", killedAt: killedAt, recorded: recorded) ?? []
            #expect(problems.isEmpty, "\(id): \(problems)")
            if runs.count > 1 { rerun += 1 }
        }
        for id in cut {
            let runs = logs[id]?.runs ?? []
            #expect(
                runs.first?.replica == "r3" && runs.first?.end == nil && runs.count == 2,
                "\(id), cut short on r3, ran once more: \(runs)")
        }

        // Every output of every job, from every replica (r3 with its new, empty data directory too), is the
        // one its job recorded, and every job's log says it succeeded; the bucket holds no upload and no
        // object of a job that does not exist.
        var outputs: [Expected] = []
        var keys: [String: Set<String>] = [:]
        for id in ids {
            let listedOutputs = listed[id]?["outputs"] as? [[String: Any]] ?? []
            #expect(!listedOutputs.isEmpty, "\(id) lists no output")
            // What a run writes is under its attempt: the one the record names, which succeeded.
            let run = "runs/\(listed[id]?["attempts"] as? Int ?? 0)/"
            keys[id] = ["inputs/input", run + "job.log"]
            for output in listedOutputs {
                let name = output["name"] as? String ?? ""
                keys[id]?.insert(run + "outputs/" + name)
                outputs.append(
                    Expected(
                        path: output["url"] as? String ?? "", sha256: output["sha256"] as? String ?? "",
                        size: output["size"] as? Int ?? -1))
            }
            outputs.append(Expected(path: "/jobs/\(id)/log", contains: "succeeded"))
        }
        for (name, replica) in zip(names, replicas) {
            let wrong = try Self.mismatches(outputs, from: replica, scratch: scratch)
            #expect(wrong.isEmpty, "fetched from \(name): \(wrong.prefix(10))")
        }
        // Each job's objects are its input, its log and the outputs it lists: nothing a cut run left.
        let listing = try s3.list(Self.prefix + "/")
        #expect(listing.uploads.isEmpty, "multipart uploads left: \(listing.uploads)")
        var stored: [String: Set<String>] = [:]
        var strays: [String] = []
        for key in listing.objects {
            let parts = key.split(separator: "/", maxSplits: 3).map(String.init)
            guard parts.count == 4, parts[1] == "jobs", keys[parts[2]] != nil else {
                strays.append(key)
                continue
            }
            stored[parts[2], default: []].insert(parts[3])
        }
        #expect(strays.isEmpty, "objects of no job: \(strays.prefix(10))")
        for id in ids where stored[id] != keys[id] {
            Issue.record("\(id) has \(stored[id]?.sorted() ?? []) in the bucket, not \(keys[id]?.sorted() ?? [])")
        }
        print(
            "object cluster: \(ids.count) jobs, \(outputs.count) outputs and logs from 3 replicas (r3 killed with "
                + "\(cut.count) held, data directory deleted), \(rerun) run again; all ended after "
                + "\(Int(submitted.timeIntervalSince(began))) s, checked after \(Int(Date().timeIntervalSince(began))) s"
        )
    }
}
