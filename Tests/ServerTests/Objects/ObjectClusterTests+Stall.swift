import Foundation
import TestSupport
import Testing

extension ObjectClusterTests {
    /// A replica that stalls (SIGSTOP) while its run's outputs go up to the bucket, past its lease: r1 takes
    /// the job over and it succeeds there; when r3 goes on, its upload ends, its end is refused (the lease
    /// is gone) and it knows the job as r1 ended it. Matroska outputs differ from run to run (their date),
    /// so an upload of r3's landing over r1's would show in the bytes served; each run's objects are under
    /// its attempt, and downloads read the attempt the record names.
    @Test func aStalledReplicasUploadLeavesTheOutputsOfTheRunThatTookOver() throws {
        let postgres = try DatabaseReplicaTests.database()
        defer { postgres.shutdown() }
        let s3 = try SeaweedFS()
        let scratch = try Scratch("objects-stall")
        func replica(_ name: String) throws -> ServerProcess {
            try ServerProcess(
                dataDirectory: scratch.file("data-\(name)"),
                [
                    "--database", postgres.url(database: "mediad"), "--replica-id", name, "--workers", "1",
                    "--lease-ttl", "6s", "--heartbeat", "0.5s",
                ] + ObjectStorageServeTests.objectFlags(s3, prefix: "stall"),
                environment: SeaweedFS.credentialsEnvironment, logFile: scratch.file("\(name).log"))
        }
        // r3 starts alone, so the job runs there; its worker is held until the store is held too.
        let r3 = try replica("r3")
        defer { r3.stop(SIGKILL) }
        let (id, worker) = try IsolationTests.heldWorker(
            r3, ["-T", try Self.tinyMovie()], submitting: "/jobs/remux?format=mkv")
        defer { kill(worker, SIGCONT) }
        let r1 = try replica("r1")
        defer { r1.stop() }

        let weed = try s3.weedPID()
        kill(weed, SIGSTOP)
        defer { kill(weed, SIGCONT) }
        kill(worker, SIGCONT)
        let log = r3.dataDirectory + "/jobs/\(id)/job.log"
        let storing = EventStreamTests.eventually(120) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("storing 1 outputs")
        }
        try #require(storing, "r3's run never began storing its outputs")
        // r3 stalls with its upload under way; the store goes on, and r1 takes the job once the lease expires.
        kill(r3.pid, SIGSTOP)
        defer { kill(r3.pid, SIGCONT) }
        kill(weed, SIGCONT)
        let ended = try DatabaseReplicaTests.job(r1, id, wait: 120)
        #expect(ended["state"] as? String == "succeeded" && ended["replica"] as? String == "r1", "\(ended)")
        #expect(ended["attempts"] as? Int == 2, "\(ended)")
        let output = try #require((ended["outputs"] as? [[String: Any]])?.first, "\(ended)")
        let expected = Expected(
            path: output["url"] as? String ?? "", sha256: output["sha256"] as? String, size: output["size"] as? Int)

        kill(r3.pid, SIGCONT)
        let refused = EventStreamTests.eventually(120) {
            ((try? String(contentsOfFile: scratch.file("r3.log"), encoding: .utf8)) ?? "")
                .contains("recording the end of a job failed")
        }
        #expect(refused, "r3 never tried to record the end of its run")
        // Its end refused, r3 knows the job as the database has it: succeeded on r1.
        let known = try DatabaseReplicaTests.job(r3, id, wait: 60)
        #expect(known["state"] as? String == "succeeded" && known["replica"] as? String == "r1", "\(known)")
        // r3's run put its outputs and the job's log under its own attempt (1), whether before or after r1's
        // run (2) put its own: every replica serves r1's, the ones the record names.
        for (name, server) in [("r1", r1), ("r3", r3)] {
            let wrong = try Self.mismatches([expected], from: server, scratch: scratch)
            #expect(wrong.isEmpty, "fetched from \(name): \(wrong)")
        }
        let stored = try s3.read("stall/jobs/\(id)/runs/2/outputs/\(output["name"] as? String ?? "")")
        #expect(stored["sha256"] as? String == expected.sha256, "\(stored)")
        #expect(try s3.list("stall/").uploads.isEmpty)
    }
}
