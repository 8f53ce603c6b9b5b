import Foundation
import TestSupport
import Testing

/// The faults a `mediad serve --database` cluster must survive, on a real PostgreSQL: a replica SIGKILLed
/// under load (here), the database stopped and started again under load and replicas started together on
/// an empty database (`DatabaseClusterTests+Outage`).
@Suite(.serialized) struct DatabaseClusterTests {
    static let smallJobs = 200
    static let leaseTTL = 10
    static let ended: Set<String> = ["succeeded", "failed", "cancelled"]

    /// A replica named `name`, without job workers (`--isolation none`, as `SharedStoreTests`), its URL
    /// inputs allowed from the test's peer and waited for past the peer's one-minute stall (no minimum
    /// rate: a long job that no fault cuts short gets its input after that minute).
    static func replica(_ name: String, _ postgres: PostgresServer, data: String, ttl: Int = leaseTTL) throws
        -> ServerProcess
    {
        try ServerProcess(
            dataDirectory: data,
            [
                "--database", postgres.url(database: "mediad"), "--replica-id", name, "--lease-ttl", "\(ttl)s",
                "--heartbeat", "0.5s", "--isolation", "none", "--workers", "2", "--max-queued", "1000",
                "--egress-allow", "127.0.0.1", "--egress-idle-timeout", "2m", "--min-upload-rate", "0",
            ])
    }

    /// An encode whose input the peer sends a kilobyte of, then nothing for a minute (all of it at once to
    /// a later attempt): a job that runs on the replica that claims it until the test is done with it.
    static func submitLong(_ server: ServerProcess, _ peer: PeerProcess, _ index: Int) throws -> String {
        let reply = try Curl.run(
            server.url("/jobs/encode?format=m4a"),
            ["-X", "POST", "--url-query", "input_url=\(peer.url)/slow-once/long-120.wav?job=\(index)"])
        #expect(reply.status == 202, "\(reply.text)")
        return try #require(reply.json["id"] as? String, "\(reply.text)")
    }

    /// Waits (up to `seconds`) until every job of `ids` has ended as `server` lists them; returns the list.
    static func allEnded(_ ids: [String], on server: ServerProcess, seconds: Double) throws
        -> [String: [String: Any]]
    {
        var listed: [String: [String: Any]] = [:]
        _ = try EventStreamTests.eventually(seconds) {
            listed = try SharedStoreTests.listing(server)
            return ids.allSatisfy { Self.ended.contains(listed[$0]?["state"] as? String ?? "") }
        }
        return listed
    }

    /// The state column of every job in the database, by id.
    static func storedStates(_ postgres: PostgresServer) throws -> [String: String] {
        let rows = try postgres.psql("SELECT id || ' ' || state FROM jobs", database: "mediad")
        return Dictionary(
            rows.split(separator: "\n").map { line in
                let words = line.split(separator: " ").map(String.init)
                return (words.first ?? "", words.last ?? "")
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether any of `ids` runs on `server` with it as its holder.
    static func runsAny(_ ids: [String], on server: ServerProcess, as name: String) throws -> Bool {
        try ids.contains { id in
            let job = try Curl.run(server.url("/jobs/\(id)")).json
            return job["state"] as? String == "running" && job["replica"] as? String == name
        }
    }

    /// Three replicas on one database and data directory, 200 small jobs round-robin with curl, r3 SIGKILLed
    /// while it runs two long jobs and small ones: every job ends once (the runs in the database never
    /// overlap, exactly one succeeded run per job, the last), r3's cut runs are run again elsewhere, and
    /// every replica (r3 started again) lists every job and serves any output.
    @Test func threeReplicasOneKilledEveryJobEndsOnce() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        let tone = try Fixtures.wav()
        _ = try SharedStoreTests.longInput(in: scratch, seconds: 120)
        let peer = try PeerProcess.script("file_server.py", [scratch.path])
        // r3 starts alone so that it claims both long jobs.
        let r3 = try Self.replica("r3", postgres, data: data)
        defer { r3.stop(SIGKILL) }
        let longIDs = try (0..<2).map { try Self.submitLong(r3, peer, $0) }
        let alone = try EventStreamTests.eventually(60) { try Self.runsAny(longIDs, on: r3, as: "r3") }
        try #require(alone, "r3, alone, runs none of the long jobs within 60 s")
        let servers = try ["r1", "r2"].map { try Self.replica($0, postgres, data: data) } + [r3]
        defer { for server in servers.prefix(2) { server.stop() } }

        var ids = longIDs
        let kinds = ["/jobs/remux?format=mkv", "/jobs/remux?format=mp4&faststart=true", "/jobs/encode?format=m4a"]
        func submitSmall(_ index: Int, on live: [ServerProcess]) throws {
            let path = kinds[index % kinds.count]
            ids.append(
                try SharedStoreTests.submit(live[index % live.count], path, path.contains("encode") ? tone : movie))
        }
        for index in 0..<(Self.smallJobs * 2 / 3) { try submitSmall(index, on: servers) }
        try #require(try Self.runsAny(longIDs, on: r3, as: "r3"), "a long job still runs on r3 when it is killed")
        r3.stop(SIGKILL)
        // Every run r3 started, it started before this.
        let killedAt = Date()
        let live = Array(servers.prefix(2))
        for index in (Self.smallJobs * 2 / 3)..<Self.smallJobs { try submitSmall(index, on: live) }

        // A long job, long-polled on a replica that did not run it, ends after the takeover.
        let longEnd = try DatabaseReplicaTests.job(live[0], longIDs[0], wait: 180)
        #expect(longEnd["state"] as? String == "succeeded", "\(longEnd)")
        let listed = try Self.allEnded(ids, on: live[0], seconds: 300)
        #expect(Set(listed.keys) == Set(ids), "r1 lists every job, wherever it was created")

        // The database agrees: every job ended once, in one run that succeeded, after runs that never overlap.
        let states = try Self.storedStates(postgres)
        #expect(Set(states.keys) == Set(ids), "the database holds exactly the jobs submitted")
        let logs = try RunLog.database(postgres)
        #expect(logs["unparsable"] == nil, "\(logs["unparsable"]?.runs ?? [])")
        var cutByTheKill: [String] = []
        for id in ids {
            let job = try #require(listed[id], "\(id) is not listed")
            #expect(job["state"] as? String == "succeeded" && states[id] == "succeeded", "\(id): \(job)")
            let runs = logs[id]?.runs ?? []
            let attempts = job["attempts"] as? Int ?? 0
            // The claim opens the attempt's run and the release ends it in the same statement as the record.
            #expect(runs.map(\.attempt) == Array(1...max(1, attempts)), "\(id): \(attempts) attempts, runs \(runs)")
            #expect(runs.last?.replica == job["replica"] as? String, "\(id): \(runs)")
            // The record's end, the lease's release and the run's end are one statement: a succeeded job's
            // last run is ended, whenever r3 was killed.
            #expect(runs.last?.outcome == "succeeded", "\(id): \(runs)")
            let recorded = (job["replica"] as? String).map { (replica: $0, attempt: attempts) }
            let problems = logs[id]?.problems(killed: "r3", killedAt: killedAt, recorded: recorded) ?? []
            #expect(problems.isEmpty, "\(id): \(problems)")
            if runs.contains(where: { $0.replica == "r3" && $0.end == nil }) {
                cutByTheKill.append(id)
            }
        }
        #expect(!Set(cutByTheKill).isDisjoint(with: longIDs), "a long job was running on r3 when it was killed")
        for id in cutByTheKill {
            #expect(listed[id]?["replica"] as? String != "r3", "\(id), cut short on r3, was run again elsewhere")
        }

        // r3 started again (under its name) knows every job, like the others; any replica serves any output.
        try r3.launch()
        for server in servers {
            #expect(
                Set(try SharedStoreTests.listing(server).keys) == Set(ids), "replica \(server.port) lists every job")
        }
        var outputs: [String] = []
        for (index, id) in ids.enumerated() {
            let output = try #require((listed[id]?["outputs"] as? [[String: Any]])?.first)
            let name = try #require(output["name"] as? String)
            outputs.append(data + "/jobs/\(id)/outputs/\(name)")
            guard index % 25 == 0 else { continue }
            for server in servers {
                let download = try Command.run(
                    "sh", ["-c", "curl -sS \(server.url("/jobs/\(id)/output")) | sha256sum"])
                #expect(
                    download.text.prefix(64) == (output["sha256"] as? String)?.prefix(64),
                    "download of \(id) from \(server.port)")
            }
        }
        #expect(try SharedStoreTests.invalidMedia(outputs) == [], "not valid media per ffmpeg/ffprobe")
        print("database cluster: \(ids.count) jobs on 3 replicas (one killed), \(cutByTheKill.count) cut by the kill")
    }
}
