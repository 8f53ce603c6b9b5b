import Foundation
import Synchronization
import TestSupport
import Testing

extension DatabaseClusterTests {
    /// PostgreSQL stopped for 10 s and started again while two replicas run jobs and are sent more: while it
    /// is down both say they are not ready and refuse every submission with 503 `store_unavailable` and
    /// `Retry-After`; once it is back every job accepted before or after ends `succeeded` (those whose runs
    /// the outage cut short after another attempt), both replicas list them all, and the database holds
    /// exactly the accepted jobs.
    @Test func theDatabaseStoppedUnderLoadLosesNothing() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster-outage")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        let tone = try Fixtures.wav()
        _ = try SharedStoreTests.longInput(in: scratch, seconds: 120)
        let peer = try PeerProcess.script("file_server.py", [scratch.path])
        // A TTL shorter than the outage: the leases of the runs under way expire while the database is down.
        let replicas = try ["r1", "r2"].map { try Self.replica($0, postgres, data: data, ttl: 6) }
        defer { for replica in replicas { replica.stop() } }
        let kinds = ["/jobs/remux?format=mkv", "/jobs/encode?format=m4a"]
        func submitSmall(_ index: Int) throws -> String {
            let path = kinds[index % kinds.count]
            return try SharedStoreTests.submit(replicas[index % 2], path, path.contains("encode") ? tone : movie)
        }

        // Long jobs, one submitted to each replica, run through the outage; small ones queue behind them.
        let longIDs = try (0..<2).map { try Self.submitLong(replicas[$0], peer, $0) }
        var ids = longIDs + (try (0..<40).map(submitSmall))
        let running = try EventStreamTests.eventually(60) {
            try Self.runsAny(longIDs, on: replicas[0], as: "r1") || Self.runsAny(longIDs, on: replicas[0], as: "r2")
        }
        try #require(running, "no long job runs within 60 s")

        postgres.stop()
        let downUntil = Date().addingTimeInterval(10)
        for replica in replicas {
            let notReady = try EventStreamTests.eventually(60) { try Curl.run(replica.url("/readyz")).status == 503 }
            #expect(notReady, "/readyz of \(replica.port) stayed ready with the database down")
        }
        var refused = 0
        repeat {
            for (index, replica) in replicas.enumerated() {
                let reply = try Curl.run(replica.url(kinds[index]), ["-T", index == 0 ? movie : tone])
                #expect(reply.status == 503, "\(replica.port) took a job with the database down: \(reply.text)")
                #expect(reply.errorCode == "store_unavailable", "\(reply.text)")
                #expect(reply.headers["retry-after"] != nil, "\(reply.rawHeaders)")
                if let id = reply.json["id"] as? String { ids.append(id) } else { refused += 1 }
                let ready = try Curl.run(replica.url("/readyz"))
                #expect(ready.status == 503, "/readyz of \(replica.port) with the database down: \(ready.text)")
            }
        } while Date() < downUntil
        try postgres.start()

        for replica in replicas {
            let ready = try EventStreamTests.eventually(60) { try Curl.run(replica.url("/readyz")).status == 200 }
            #expect(ready, "/readyz of \(replica.port) never became ready again")
        }
        ids += try (40..<60).map(submitSmall)
        let listed = try Self.allEnded(ids, on: replicas[0], seconds: 300)
        let other = try Self.allEnded(ids, on: replicas[1], seconds: 60)
        let states = try Self.storedStates(postgres)
        #expect(Set(states.keys) == Set(ids), "the database holds exactly the accepted jobs")
        let logs = try RunLog.database(postgres)
        var retried = 0
        for id in ids {
            let job = try #require(listed[id], "\(id) is not listed by r1")
            #expect(job["state"] as? String == "succeeded" && states[id] == "succeeded", "\(id): \(job)")
            #expect(other[id]?["state"] as? String == "succeeded", "\(id) on r2: \(other[id] ?? [:])")
            let runs = logs[id]?.runs ?? []
            // A run cut short by the outage may stay open (its lease was taken back); one run ended the job.
            #expect(runs.filter { $0.outcome == "succeeded" }.count == 1, "\(id): \(runs)")
            #expect(runs.last?.outcome == "succeeded", "\(id): \(runs)")
            #expect(runs.last?.replica == job["replica"] as? String, "\(id): \(runs)")
            #expect(runs.count == job["attempts"] as? Int, "\(id): \(job["attempts"] ?? 0) attempts, runs \(runs)")
            if runs.count > 1 { retried += 1 }
        }
        #expect(refused >= 2, "every replica was asked for work while the database was down")
        print("database outage: \(ids.count) jobs, \(refused) refused while down, \(retried) run again")
    }

    /// Two replicas started at the same moment on an empty database: both migrate it under the advisory lock
    /// (each version applied once) and start, and each runs a job: r2 one that r1 has no worker for.
    @Test func twoReplicasStartTogetherOnAnEmptyDatabase() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster-start")
        let data = scratch.file("data")
        let started = Mutex<[String: Result<ServerProcess, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let name = "r\(index + 1)"
            let result = Result { try DatabaseReplicaTests.replica(name, postgres, data: data) }
            started.withLock { $0[name] = result }
        }
        let results = started.withLock { $0 }
        let replicas = try ["r1", "r2"].map { try #require(results[$0]).get() }
        defer { for replica in replicas { replica.stop() } }
        let versions = try postgres.psql(
            "SELECT count(*) || ' ' || max(version) FROM mediad_schema", database: "mediad")
        let counted = versions.split(separator: " ")
        #expect(counted.count == 2 && counted.first == counted.last, "one row per version: \(versions)")

        // A job held in its worker (SIGSTOP) fills the one worker of the replica that claimed it; a second
        // job, submitted to that replica, can only run on the other.
        let holders = replicas.map { ChildProcesses.Holder($0.pid, command: "worker") }
        var worker: Int32?
        defer { if let worker { kill(worker, SIGCONT) } }
        let pcm = try IsolationTests.noisePCM(scratch, 20)
        let first = try #require(
            try Curl.run(replicas[0].url("/jobs/encode?format=m4a"), ["-T", pcm]).json["id"] as? String)
        _ = try EventStreamTests.eventually(120) {
            worker = try IsolationTests.worker(of: replicas[0], job: first)
            return worker != nil
        }
        for holder in holders { holder.release(keeping: worker) }
        try #require(worker != nil, "job \(first) never reached a worker")
        let holder = try #require(try DatabaseReplicaTests.job(replicas[0], first)["replica"] as? String)
        let (busy, idle) = holder == "r1" ? (replicas[0], "r2") : (replicas[1], "r1")
        let second = try SharedStoreTests.submit(busy, "/jobs/remux?format=mkv", try Fixtures.h264AacMP4())
        let secondEnd = try DatabaseReplicaTests.job(busy, second, wait: 120)
        #expect(secondEnd["state"] as? String == "succeeded" && secondEnd["replica"] as? String == idle, "\(secondEnd)")
        if let held = worker { kill(held, SIGCONT) }
        worker = nil
        let firstEnd = try DatabaseReplicaTests.job(replicas[1], first, wait: 120)
        #expect(firstEnd["state"] as? String == "succeeded" && firstEnd["replica"] as? String == holder, "\(firstEnd)")
        #expect(try DatabaseReplicaTests.runs(postgres, first) == ["1 \(holder) succeeded"])
        #expect(try DatabaseReplicaTests.runs(postgres, second) == ["1 \(idle) succeeded"])
    }
}
