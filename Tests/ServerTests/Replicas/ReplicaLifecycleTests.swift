import Foundation
import TestSupport
import Testing

/// Replicas coming and going around one job: a cancel and a delete through the replica that does not run
/// it, a drain that hands the job over, three lost runs that end it as `interrupted`, a restart under the
/// same id, and the replica flags.
@Suite(.serialized) struct ReplicaLifecycleTests {
    /// `DELETE` on one replica of a job running on another: the holder's heartbeat sees the cancel request
    /// and stops it; then the finished job is deleted through the other replica and is gone from both.
    @Test func cancelAndDeleteThroughAnotherReplica() throws {
        let scratch = try Scratch("replicas-cancel")
        let data = scratch.file("data")
        let long = try SharedStoreTests.longInput(in: scratch, seconds: 1800)
        let servers = try ["c1", "c2"].map { try SharedStoreTests.replica($0, data: data) }
        let id = try SharedStoreTests.submit(servers[0], "/jobs/encode?format=m4a", long)
        var holder: String?
        let deadline = Date().addingTimeInterval(60)
        while holder == nil && Date() < deadline {
            let job = try Curl.run(servers[1].url("/jobs/\(id)")).json
            if job["state"] as? String == "running" { holder = job["replica"] as? String } else { usleep(100_000) }
        }
        let running = try #require(holder, "the job never ran")
        let other = running == "c1" ? servers[1] : servers[0]
        let cancel = try Curl.run(other.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(cancel.status == 200)
        let end = try Curl.run(other.url("/jobs/\(id)?wait=30")).json
        #expect(end["state"] as? String == "cancelled", "\(end)")
        #expect((end["error"] as? [String: Any])?["code"] as? String == "cancelled")
        let runs = try RunLog.waitingForTheEnd(path: data + "/jobs/\(id)/runs")
        #expect(runs.runs.map(\.replica) == [running] && runs.runs.first?.outcome == "cancelled", "\(runs.runs)")

        #expect(try Curl.run(other.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 204)
        for server in servers { #expect(try Curl.run(server.url("/jobs/\(id)")).status == 404) }
        #expect(try Curl.run(servers[0].url("/jobs/\(id)"), ["-X", "DELETE"]).status == 404)
    }

    /// SIGTERM on a replica running a job: after the shutdown grace it requeues the job and releases the
    /// lease, so another replica takes it over at once (well before the lease would have expired).
    ///
    /// Both replicas are up before the job is submitted, so the SIGTERM follows the job's start at once:
    /// a loaded CI run that started the second replica only then saw the half-hour encode end first. The
    /// replica that took the job is the one stopped (the one it was submitted to, nearly always).
    @Test func aDrainingReplicaHandsItsJobOver() throws {
        let scratch = try Scratch("replicas-drain")
        let data = scratch.file("data")
        let long = try SharedStoreTests.longInput(in: scratch, seconds: 1800)
        let replicas = try ["d1", "d2"].map { name in
            try ServerProcess(
                dataDirectory: data,
                [
                    "--shared-store", "--replica-id", name, "--lease-ttl", "60s", "--heartbeat", "0.5s",
                    "--isolation", "none", "--shutdown-grace", "0.2s",
                ])
        }
        let id = try SharedStoreTests.submit(replicas[0], "/jobs/encode?format=m4a", long)
        var holder: String?
        let deadline = Date().addingTimeInterval(60)
        while holder == nil && Date() < deadline {
            let job = try Curl.run(replicas[0].url("/jobs/\(id)")).json
            if job["state"] as? String == "running" { holder = job["replica"] as? String } else { usleep(20_000) }
        }
        let draining = try #require(holder, "the job never ran")
        let (stopping, other) = draining == "d1" ? (replicas[0], replicas[1]) : (replicas[1], replicas[0])
        let taker = draining == "d1" ? "d2" : "d1"
        let stopped = Date()
        #expect(stopping.stop(SIGTERM) == 0)
        // The takeover is what is tested, not the half-hour encode: once the other replica runs the second
        // attempt the job is cancelled there (a loaded run could not finish the encode within any wait).
        let taken = try Self.running(id, attempt: 2, on: other)
        #expect(taken["replica"] as? String == taker, "\(taken)")
        #expect(try Curl.run(other.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 200)
        let runs = try RunLog.waitingForTheEnd(path: data + "/jobs/\(id)/runs").runs
        #expect(
            runs.map(\.replica) == [draining, taker] && runs.map(\.outcome) == ["requeued", "cancelled"], "\(runs)")
        let handover = (runs.last?.start ?? .distantFuture).timeIntervalSince(stopped)
        #expect(handover < 30, "taken over \(handover) s after SIGTERM, not after the 60 s lease")
    }

    /// The job once `server` shows it running its attempt `attempt` (up to two minutes, for a loaded
    /// machine); fails the test when it never does.
    static func running(_ id: String, attempt: Int, on server: ServerProcess) throws -> [String: Any] {
        var job: [String: Any] = [:]
        for _ in 0..<1200 {
            job = try Curl.run(server.url("/jobs/\(id)")).json
            if job["state"] as? String == "running", job["attempts"] as? Int == attempt { return job }
            usleep(100_000)
        }
        Issue.record("job \(id) never ran attempt \(attempt): \(job)")
        return job
    }

    /// A job whose replica dies three times in a row is given up as `interrupted`, as on a single server;
    /// each takeover waits for the lease to expire and counts one more attempt.
    @Test func threeLostRunsEndAsInterrupted() throws {
        let scratch = try Scratch("replicas-interrupted")
        let data = scratch.file("data")
        let long = try SharedStoreTests.longInput(in: scratch, seconds: 1800)
        func replica(_ name: String) throws -> ServerProcess {
            try ServerProcess(
                dataDirectory: data,
                [
                    "--shared-store", "--replica-id", name, "--lease-ttl", "2s", "--heartbeat", "0.5s", "--isolation",
                    "none",
                ])
        }
        var server = try replica("i1")
        let id = try SharedStoreTests.submit(server, "/jobs/encode?format=m4a", long)
        for attempt in 1...3 {
            let deadline = Date().addingTimeInterval(60)
            var job: [String: Any] = [:]
            repeat {
                job = Self.stored(id, in: data)
                if job["attempts"] as? Int == attempt && job["replica"] as? String == "i\(attempt)" { break }
                usleep(100_000)
            } while Date() < deadline
            try #require(job["state"] as? String == "running" && job["attempts"] as? Int == attempt, "\(job)")
            server.stop(SIGKILL)
            server = try replica("i\(attempt + 1)")
        }
        let end = try Curl.run(server.url("/jobs/\(id)?wait=60")).json
        #expect(end["state"] as? String == "failed" && end["attempts"] as? Int == 3, "\(end)")
        #expect((end["error"] as? [String: Any])?["code"] as? String == "interrupted")
        let runs = try RunLog(path: data + "/jobs/\(id)/runs").runs
        #expect(runs.map(\.replica) == ["i1", "i2", "i3"] && runs.allSatisfy { $0.end == nil }, "\(runs)")
    }

    /// A replica's rescan can find a new job's directory, claim the job and run it before the request that
    /// created the job has handed it to the index. The record saved at the run's end must be the run's
    /// (one attempt, this replica's), not the queued one the request made: a CI run saved `succeeded`
    /// with no attempt and no replica. A 20 ms heartbeat makes the rescan land in that gap now and then;
    /// idempotency keys widen it (the key is claimed in between).
    @Test func aJobARescanStartsBeforeItsSubmissionReturnsKeepsItsRun() throws {
        let scratch = try Scratch("replicas-rescan-race")
        let data = scratch.file("data")
        let server = try ServerProcess(
            dataDirectory: data,
            [
                "--shared-store", "--replica-id", "q1", "--lease-ttl", "1s", "--heartbeat", "0.02s", "--isolation",
                "none", "--workers", "2", "--max-queued", "1000",
            ])
        let jobs = 160
        let submit =
            "seq 1 \(jobs) | xargs -P 8 -I{} curl -sS -o /dev/null -w '%{http_code}\\n' -H 'Idempotency-Key: k{}' "
            + "-T '\(try Fixtures.adts())' '\(server.url("/jobs/remux?format=m4a"))'"
        let statuses = try Command.run("sh", ["-c", submit]).text.split(separator: "\n")
        #expect(statuses.count == jobs && statuses.allSatisfy { $0 == "202" || $0 == "200" }, "\(statuses)")
        var listed: [String: [String: Any]] = [:]
        let deadline = Date().addingTimeInterval(120)
        repeat {
            listed = try SharedStoreTests.listing(server)
            if listed.values.allSatisfy({ ["succeeded", "failed", "cancelled"].contains($0["state"] as? String) }) {
                break
            }
            usleep(200_000)
        } while Date() < deadline
        #expect(listed.count == jobs)
        for id in listed.keys {
            let record = Self.stored(id, in: data)
            #expect(
                record["state"] as? String == "succeeded" && record["attempts"] as? Int == 1
                    && record["replica"] as? String == "q1", "\(id): \(record)")
            let runs = try RunLog.waitingForTheEnd(path: data + "/jobs/\(id)/runs").runs
            #expect(runs.map(\.attempt) == [1] && runs.map(\.outcome) == ["succeeded"], "\(id): \(runs)")
        }
    }

    /// The job's record as the store has it. A replica answers `running` as soon as a run starts and saves
    /// it a moment later: a kill in between leaves the job queued with one attempt fewer (a loaded CI run
    /// killed there), so the tests that kill a run wait for the saved record.
    static func stored(_ id: String, in data: String) -> [String: Any] {
        let path = data + "/jobs/\(id)/job.json"
        guard let bytes = FileManager.default.contents(atPath: path),
            let record = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any]
        else { return [:] }
        return record
    }

    /// A replica restarted with the same `--replica-id` releases the leases its previous process left
    /// and runs the job again at once, not after the lease TTL.
    @Test func aRestartWithTheSameIdResumesAtOnce() throws {
        let scratch = try Scratch("replicas-restart")
        let data = scratch.file("data")
        let long = try SharedStoreTests.longInput(in: scratch, seconds: 1800)
        let arguments = [
            "--shared-store", "--replica-id", "same", "--lease-ttl", "120s", "--heartbeat", "1s", "--isolation", "none",
        ]
        let first = try ServerProcess(dataDirectory: data, arguments)
        let id = try SharedStoreTests.submit(first, "/jobs/encode?format=m4a", long)
        let deadline = Date().addingTimeInterval(60)
        while Self.stored(id, in: data)["state"] as? String != "running" && Date() < deadline { usleep(50_000) }
        first.stop(SIGKILL)
        let restarted = Date()
        let second = try ServerProcess(dataDirectory: data, arguments)
        _ = try Self.running(id, attempt: 2, on: second)
        #expect(Date().timeIntervalSince(restarted) < 110, "resumed before the 120 s lease expired")
        // The resumption is what is tested, not the half-hour encode.
        #expect(try Curl.run(second.url("/jobs/\(id)"), ["-X", "DELETE"]).status == 200)
    }

    /// Replica flags are checked before the server starts; without `--replica-id` a replica names itself
    /// `<host>-<pid>-<random>` and the job says so.
    @Test func replicaFlagsAndDefaultIdentity() throws {
        let scratch = try Scratch("replica-flags")
        for (arguments, message) in [
            (["--shared-store", "--lease-ttl", "10s", "--heartbeat", "6s"], "at most half of --lease-ttl"),
            (["--replica-id", "a"], "need --shared-store"),
            (["--shared-store", "--replica-id", "a/b"], "--replica-id must be"),
            (["--shared-store", "--lease-ttl", "soon"], "--lease-ttl must be a duration"),
        ] {
            let output = try Command.run(
                ServerProcess.binary, ["serve", "--port", "0", "--data-dir", scratch.file("data")] + arguments,
                allowFailure: true)
            #expect(output.status != 0 && output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        let server = try ServerProcess(dataDirectory: scratch.file("data"), ["--shared-store", "--isolation", "none"])
        let id = try SharedStoreTests.submit(server, "/jobs/remux?format=mkv", try Fixtures.h264AacMP4())
        let job = try Curl.run(server.url("/jobs/\(id)?wait=60")).json
        let replica = try #require(job["replica"] as? String)
        #expect(replica.contains("-\(server.pid)-"), "\(replica)")
    }

}
