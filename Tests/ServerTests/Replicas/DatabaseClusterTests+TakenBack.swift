import Foundation
import TestSupport
import Testing

extension DatabaseClusterTests {
    /// A job whose lease is taken back while its run still goes on here (as a replica takes back a lease
    /// that expired while the database was away) is not run a second time beside that run: the holder's
    /// next renewal stops it (its input fetch is given up), and only then does the next attempt start.
    @Test func aRunWhoseLeaseWasTakenBackIsStoppedFirst() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let scratch = try Scratch("db-cluster-taken-back")
        _ = try SharedStoreTests.longInput(in: scratch, seconds: 120)
        let peer = try PeerProcess.script("file_server.py", [scratch.path])
        // A lease that does not expire during the test: only the statement below takes it away.
        let server = try Self.replica("r1", postgres, data: scratch.file("data"), ttl: 600)
        defer { server.stop() }
        let id = try Self.submitLong(server, peer, 0)
        func log() throws -> [Substring] {
            try Curl.run(server.url("/jobs/\(id)/log")).text.split(separator: "\n")
        }
        let fetching = try EventStreamTests.eventually(60) { try log().contains { $0.contains("fetching input") } }
        try #require(fetching, "the job's input fetch never started")

        // Taken back as `reclaimExpired` takes back an expired lease: queued again, no holder, which notifies
        // every replica of a queued job.
        try postgres.psql(
            """
            UPDATE jobs SET state = 'queued', holder = NULL, lease_expires = NULL, progress = 0,
                record = record || '{"state": "queued"}', queued_at = now(), updated_at = now()
            WHERE id = '\(id)'
            """, database: "mediad")
        let ended = try DatabaseReplicaTests.job(server, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded" && ended["attempts"] as? Int == 2, "\(ended)")
        #expect(try DatabaseReplicaTests.runs(postgres, id) == ["1 r1", "2 r1 succeeded"])
        let lines = try log()
        let stopped = lines.firstIndex { $0.contains("not taken") }
        let fetches = lines.indices.filter { lines[$0].contains("fetching input") }
        #expect(fetches.count == 2, "\(lines)")
        #expect(stopped.map { $0 < fetches.last ?? 0 } == true, "the first run stopped before the second: \(lines)")
    }
}
