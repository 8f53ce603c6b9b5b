import Foundation
import TestSupport
import Testing

/// `mediad serve --database`: replicas that share their jobs through a real PostgreSQL (started by the test
/// in a temporary directory, stopped by it) and their media through one data directory.
@Suite(.serialized) struct DatabaseReplicaTests {
    static let leaseTTL = 6

    /// A replica named `name` on `database`'s jobs and the data directory `data`.
    static func replica(_ name: String, _ postgres: PostgresServer, data: String, log: String? = nil) throws
        -> ServerProcess
    {
        try ServerProcess(
            dataDirectory: data,
            [
                "--database", postgres.url(database: "mediad"), "--replica-id", name, "--lease-ttl", "\(leaseTTL)s",
                "--heartbeat", "0.5s", "--workers", "1",
            ], logFile: log)
    }

    /// A PostgreSQL server with an empty database `mediad`.
    static func database() throws -> PostgresServer {
        let postgres = try PostgresServer()
        try postgres.createDatabase("mediad")
        return postgres
    }

    /// The runs of job `id` as the database records them: `attempt replica outcome` a line (outcome empty
    /// while open).
    static func runs(_ postgres: PostgresServer, _ id: String) throws -> [String] {
        try postgres.psql(
            "SELECT attempt || ' ' || replica || ' ' || coalesce(outcome, '') FROM runs WHERE job_id = '\(id)' "
                + "ORDER BY attempt", database: "mediad"
        ).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func job(_ server: ServerProcess, _ id: String, wait: Int? = nil) throws -> [String: Any] {
        try Curl.run(server.url("/jobs/\(id)" + (wait.map { "?wait=\($0)" } ?? ""))).json
    }

    /// Jobs submitted to either replica are known to both at once, run once, long-polled and downloaded
    /// from the other one, listed by both, and each has one run in the database.
    @Test func twoReplicasShareJobsThroughTheDatabase() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-replicas")
        let data = scratch.file("data")
        let movie = try Fixtures.h264AacMP4()
        let replicas = try ["r1", "r2"].map { try Self.replica($0, postgres, data: data) }
        defer { for replica in replicas { replica.stop() } }

        var ids: [String] = []
        for index in 0..<6 {
            let (near, far) = (replicas[index % 2], replicas[1 - index % 2])
            let reply = try Curl.run(near.url("/jobs/remux?format=mkv"), ["-T", movie])
            #expect([200, 202].contains(reply.status), "\(reply.text)")
            let id = try #require(reply.json["id"] as? String, "\(reply.text)")
            ids.append(id)
            // Published before the answer: the other replica knows the job at once.
            let seen = try Curl.run(far.url("/jobs/\(id)"))
            #expect(seen.status == 200, "replica \(far.port) does not know \(id) yet: \(seen.text)")
        }
        for (index, id) in ids.enumerated() {
            let far = replicas[1 - index % 2]
            let ended = try Self.job(far, id, wait: 120)
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
            #expect(ended["attempts"] as? Int == 1, "\(ended)")
            let ran = try #require(ended["replica"] as? String)
            #expect(try Self.runs(postgres, id) == ["1 \(ran) succeeded"])
            let bodies = try replicas.map { try Curl.run($0.url("/jobs/\(id)/outputs/output.mkv")) }
            #expect(bodies.allSatisfy { $0.status == 200 && !$0.body.isEmpty })
            #expect(bodies[0].body == bodies[1].body, "both replicas serve the same output")
        }
        for replica in replicas {
            let listed = try SharedStoreTests.listing(replica)
            #expect(Set(listed.keys) == Set(ids), "replica \(replica.port) lists every job")
        }
    }

    /// A replica killed while it runs a job: another claims it once the lease expires and runs it again
    /// (attempt 2); the first run stays open in the database, the second succeeds.
    @Test func aKilledReplicasJobIsRunAgainByAnother() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-failover")
        let data = scratch.file("data")
        let r1 = try Self.replica("r1", postgres, data: data)
        defer { r1.stop(SIGKILL) }
        let (id, worker) = try IsolationTests.heldWorker(r1, ["-T", try IsolationTests.noisePCM(scratch, 20)])
        let r2 = try Self.replica("r2", postgres, data: data)
        defer { r2.stop() }
        r1.stop(SIGKILL)
        kill(worker, SIGKILL)
        let ended = try Self.job(r2, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        #expect(ended["attempts"] as? Int == 2, "\(ended)")
        #expect(ended["replica"] as? String == "r2", "\(ended)")
        #expect(try Self.runs(postgres, id) == ["1 r1", "2 r2 succeeded"])
    }

    /// A replica stalled past its lease (SIGSTOP) loses its job to another, which runs it to the end; once
    /// it runs again, its renewal finds the lease gone, it stops its run, and its writes change nothing.
    @Test func aStalledReplicasWritesAreFencedOff() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-fencing")
        let data = scratch.file("data")
        let r1Log = scratch.file("r1.log")
        let r1 = try Self.replica("r1", postgres, data: data, log: r1Log)
        defer { r1.stop(SIGKILL) }
        let (id, worker) = try IsolationTests.heldWorker(r1, ["-T", try IsolationTests.noisePCM(scratch, 20)])
        kill(r1.pid, SIGSTOP)
        let r2 = try Self.replica("r2", postgres, data: data)
        defer { r2.stop() }
        let ended = try Self.job(r2, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        #expect(ended["replica"] as? String == "r2", "\(ended)")
        kill(r1.pid, SIGCONT)
        // r1's next renewal finds the lease taken and stops its run, killing the held worker.
        let stopped = EventStreamTests.eventually(60) { kill(worker, 0) != 0 }
        #expect(stopped, "r1 never stopped its run after losing the lease")
        let after = try Self.job(r1, id)
        #expect(after["state"] as? String == "succeeded" && after["replica"] as? String == "r2", "\(after)")
        #expect(after["attempts"] as? Int == 2, "\(after)")
        #expect(try Self.runs(postgres, id) == ["1 r1", "2 r2 succeeded"])
    }

    /// PostgreSQL stopped under a replica: it says it is not ready and refuses submissions with 503 and
    /// Retry-After; started again, it is ready and runs jobs again.
    @Test func aReplicaWithoutItsDatabaseIsNotReady() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-outage")
        let server = try Self.replica("r1", postgres, data: scratch.file("data"))
        defer { server.stop() }
        let movie = try Fixtures.h264AacMP4()
        #expect(try Curl.run(server.url("/readyz")).status == 200)

        postgres.stop()
        let notReady = try EventStreamTests.eventually(60) { try Curl.run(server.url("/readyz")).status == 503 }
        #expect(notReady, "/readyz stayed ready with the database down")
        let refused = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", movie])
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.errorCode == "store_unavailable", "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil, "\(refused.rawHeaders)")

        try postgres.start()
        let ready = try EventStreamTests.eventually(60) { try Curl.run(server.url("/readyz")).status == 200 }
        #expect(ready, "/readyz never became ready again")
        let reply = try Curl.run(server.url("/jobs/remux?format=mkv&wait=120"), ["-T", movie])
        #expect(reply.json["state"] as? String == "succeeded", "\(reply.text)")
    }

    /// A database that cannot be used stops `serve` at once with one line naming why.
    @Test func anUnusableDatabaseIsOneLineAtStart() throws {
        let postgres = try Self.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-config")
        func serve(_ url: String) throws -> Command.Output {
            try Command.run(
                ServerProcess.binary, ["serve", "--port", "0", "--data-dir", scratch.file("data"), "--database", url],
                allowFailure: true)
        }
        let closed = try PostgresServer.freePort()
        let cases: [(String, Int32, String)] = [
            ("mysql://mediad@127.0.0.1/mediad", 64, "invalid_database_url"),
            ("postgres://mediad:x@127.0.0.1:\(closed)/mediad?sslmode=disable", 1, "database_unreachable"),
            (postgres.url(database: "mediad", password: "Wr0ngPassw0rd"), 1, "database_authentication_failed"),
            (postgres.url(database: "absent"), 1, "database_missing"),
        ]
        for (url, status, code) in cases {
            let output = try serve(url)
            #expect(output.status == status, "\(url): \(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.first?.contains(code) == true, "\(url): \(output.stderr)")
            #expect(!output.stderr.contains("Wr0ngPassw0rd"), "the password is never printed: \(output.stderr)")
            // A usage error (64) adds the usage hint; a database that cannot be used is one line.
            if status == 1 { #expect(lines.count == 1, "\(url): \(output.stderr)") }
        }
        // A schema newer than this mediad knows: a replica migrates the database, then a newer mediad's
        // migration is pretended.
        try Self.replica("r1", postgres, data: scratch.file("data")).stop()
        try postgres.psql("INSERT INTO mediad_schema (version) VALUES (1000)", database: "mediad")
        let refused = try serve(postgres.url(database: "mediad"))
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("database_schema_too_new"), "\(refused.stderr)")
    }
}
