import Foundation
import TestSupport
import Testing

/// Memory under a multi-GB upload, and what survives a crash and a clean shutdown.
@Suite(.serialized) struct ResilienceTests {
    @Test func multiGigabyteUploadKeepsMemoryFlat() throws {
        let scratch = try Scratch("big")
        let big = scratch.file("big.bin")
        try Command.run("truncate", ["-s", "2G", big])
        let server = try ServerProcess()
        _ = try Curl.run(server.url("/healthz"))
        let before = server.memoryKiB("VmRSS")
        // Zeros are valid raw PCM: the upload becomes an encode job, cancelled once the upload is measured.
        let reply = try Curl.run(server.url("/jobs/encode?format=wav"), ["-T", big])
        #expect(reply.status == 202)
        let peak = server.memoryKiB("VmHWM")
        #expect(peak - before < 64 * 1024, "RSS grew from \(before) KiB to a peak of \(peak) KiB")
        let inputs = reply.json["inputs"] as? [[String: Any]]
        #expect(inputs?.first?["size"] as? Int == 2 << 30)
        let digest = try Command.run("sha256sum", [big]).text.prefix(64)
        #expect(inputs?.first?["sha256"] as? String == String(digest))
        let id = try #require(reply.json["id"] as? String)
        // On a loaded machine the job may already have finished (then DELETE removes it: 204).
        let deleted = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        let end = try Curl.run(server.url("/jobs/\(id)?wait=60"))
        if deleted.status == 204 {
            #expect(end.status == 404)
        } else {
            #expect(["cancelled", "succeeded"].contains(end.json["state"] as? String ?? ""), "\(end.text)")
        }
    }

    @Test func multiGigabyteDownloadKeepsMemoryFlat() throws {
        let scratch = try Scratch("download")
        let pcm = scratch.file("big.pcm")
        try Command.run("truncate", ["-s", "1G", pcm])
        let server = try ServerProcess()
        let job = try Curl.run(
            server.url("/jobs/encode?format=wav&sample_rate=48000&wait=120"), ["-T", pcm]
        ).json
        #expect(job["state"] as? String == "succeeded")
        let id = try #require(job["id"] as? String)
        try FileManager.default.removeItem(atPath: pcm)
        let before = server.memoryKiB("VmRSS")
        let peakBefore = server.memoryKiB("VmHWM")
        let download = try Command.run(
            "curl", ["-sS", "-o", "/dev/null", "-w", "%{size_download}", server.url("/jobs/\(id)/output")])
        #expect(Int(download.text) ?? 0 > 1 << 30)
        let peak = server.memoryKiB("VmHWM")
        #expect(peak - max(before, peakBefore) < 64 * 1024, "RSS \(before) KiB before, peak \(peak) KiB after")
    }

    @Test func everyAcceptedJobSurvivesAKill() throws {
        let scratch = try Scratch("kill")
        let server = try ServerProcess(["--workers", "1"])
        // The running job's worker is held (SIGSTOP) from its start, so the job is still running when the
        // server dies however loaded the machine; its input can be short (the retry runs it whole).
        let noise = try IsolationTests.noisePCM(scratch, 20)
        let (running, worker) = try IsolationTests.heldWorker(server, ["-T", noise])
        var queued: [String] = []
        for _ in 0..<3 {
            queued.append(
                try #require(
                    try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", try Fixtures.h264AacMP4()]).json["id"]
                        as? String))
        }
        // An upload still arriving when the server dies: its job, made once its head arrived, waits in the
        // queue with its input arriving.
        let slow = Process()
        slow.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        slow.arguments = [
            "curl", "-sS", "-o", "/dev/null", "--limit-rate", "200K", "-T", noise, server.url("/jobs/encode"),
        ]
        slow.standardError = FileHandle.nullDevice
        try slow.run()
        var arriving: String?
        for _ in 0..<600 where arriving == nil {
            let jobs = try Curl.run(server.url("/jobs?limit=100")).json["jobs"] as? [[String: Any]] ?? []
            arriving = jobs.first { $0["arriving_inputs"] != nil }?["id"] as? String
            if arriving == nil { usleep(50_000) }
        }
        let cut = try #require(arriving, "the slow upload's job was made")
        #expect(try Curl.run(server.url("/jobs/\(running)")).json["state"] as? String == "running")
        server.stop(SIGKILL)
        // Let go, the orphaned worker kills itself (ServerTether) before it can write a thing.
        kill(worker, SIGCONT)
        slow.waitUntilExit()

        try server.launch()
        for id in [running] + queued {
            let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
            #expect(job["state"] as? String == "succeeded", "\(id): \(job)")
            let output = try Curl.run(server.url("/jobs/\(id)/output"))
            let file = scratch.file("\(id).out")
            try output.body.write(to: URL(fileURLWithPath: file))
            #expect(try Oracle.streams(file).isEmpty == false)
        }
        let attempts = try Curl.run(server.url("/jobs/\(running)")).json["attempts"] as? Int
        #expect(attempts == 2, "the interrupted run and the retry")
        let all = try Curl.run(server.url("/jobs?limit=100")).json["jobs"] as? [[String: Any]] ?? []
        #expect(all.count == 5, "the cut-off upload's job is the only other one")
        let interrupted = try Curl.run(server.url("/jobs/\(cut)")).json
        #expect(interrupted["state"] as? String == "failed", "the cut-off upload's job never runs: \(interrupted)")
        #expect((interrupted["error"] as? [String: Any])?["code"] as? String == "interrupted", "\(interrupted)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        for id in [running] + queued {
            let outputs = try FileManager.default.contentsOfDirectory(
                atPath: server.dataDirectory + "/jobs/\(id)/outputs")
            #expect(outputs.allSatisfy { !$0.hasPrefix(".") }, "partial files left: \(outputs)")
        }
    }

    @Test func shutsDownCleanlyAndRequeuesWhatDidNotFinish() throws {
        let (server, id) = try Self.serverWithALongJob()
        var running = false
        for _ in 0..<100 where !running {
            running = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String == "running"
            if !running { usleep(50_000) }
        }
        try #require(running, "the job runs before the SIGTERM")
        #expect(server.stop(SIGTERM) == 0)
        let record =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/jobs/\(id)/job.json")))
            as? [String: Any]
        #expect(record?["state"] as? String == "queued")
    }

    /// SIGINT shuts down like SIGTERM, and connections still open at the end — a long poll on a job that
    /// was put back in the queue — are closed rather than waited for: the server stops within the grace
    /// period and a moment, and exits 0 from its entry point.
    @Test func openLongPollsDoNotHoldAShutdown() throws {
        let (server, id) = try Self.serverWithALongJob()
        let poll = Process()
        poll.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        poll.arguments = ["-s", "-o", "/dev/null", "-m", "120", server.url("/jobs/\(id)?wait=300")]
        try poll.run()
        usleep(500_000)
        let started = Date()
        #expect(server.stop(SIGINT) == 0)
        #expect(Date().timeIntervalSince(started) < 10, "the shutdown waited for the long poll")
        poll.waitUntilExit()
    }

    /// The port is announced only once SIGTERM is trapped: a signal sent the moment the line appears
    /// shuts down gracefully (exit 0). It used to be lost in 4 of 15 tries, leaving the server running.
    @Test func aSignalRightAfterTheAnnouncementShutsDownCleanly() throws {
        for _ in 0..<15 {
            let server = try ServerProcess()
            #expect(server.stop(SIGTERM) == 0)
        }
    }

    /// A server with a short shutdown grace and one worker, running a half-hour noise encode that will not
    /// finish within the grace (ten minutes took under ten seconds, and a loaded CI once saw it end before
    /// the SIGTERM).
    static func serverWithALongJob() throws -> (ServerProcess, String) {
        let server = try ServerProcess(["--workers", "1", "--shutdown-grace", "0.5"])
        let id = try #require(
            try Curl.run(server.url("/jobs/encode"), ["-T", try APIBehaviourTests.longPCM()]).json["id"] as? String)
        return (server, id)
    }
}
