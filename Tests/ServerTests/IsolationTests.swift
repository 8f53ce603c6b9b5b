import Foundation
import TestSupport
import Testing

/// Process isolation: a worker that crashes, is killed, runs out of memory or past its timeout fails
/// its own job with its own code, while a job on the other worker and the server carry on; workers are
/// reused for up to `--worker-jobs` jobs, and never after such an end.
@Suite(.serialized) struct IsolationTests {
    @Test func workerKilledBySIGSEGVFailsOnlyItsJob() throws {
        try killWorker(SIGSEGV, named: "SIGSEGV")
    }

    @Test func workerKilledBySIGKILLFailsOnlyItsJob() throws {
        try killWorker(SIGKILL, named: "SIGKILL")
    }

    @Test func jobOverItsTimeoutFailsAsTimeout() throws {
        let scratch = try Scratch("timeout")
        let server = try ServerProcess(["--job-timeout-floor", "1s", "--job-timeout-ceiling", "1s"])
        let input = try Self.noisePCM(scratch, 1800)
        // Half an hour of noise takes minutes to encode: ending as `timeout` is the limit acting.
        let job = try Curl.run(server.url("/jobs/encode?format=m4a&wait=120"), ["-T", input])
        #expect(job.json["state"] as? String == "failed")
        #expect((job.json["error"] as? [String: Any])?["code"] as? String == "timeout", "\(job.text)")
        let id = try #require(job.json["id"] as? String)
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("SIGKILL"), "the log says how the worker ended: \(log)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        #expect(outputs.isEmpty, "no partial output: \(outputs)")
    }

    /// A fragment run declaring 32 million samples (`MemoryBomb`) makes libav's MP4 reader ask for about
    /// 1 GB of index while it opens the file. Under a 512 MiB `--job-memory` that allocation fails (the
    /// kernel refuses the mapping), the job fails as `out_of_memory`, and a job beside it succeeds; with
    /// room for the index the same file probes fine, so it is the limit that acts.
    @Test func jobOverItsMemoryLimitFailsAsOutOfMemory() throws {
        let scratch = try Scratch("oom")
        let bomb = try MemoryBomb.fragmentRun(in: scratch)

        let limited = try ServerProcess(["--workers", "2", "--job-memory", "512M"])
        let victim = try #require(
            try Curl.run(limited.url("/jobs/remux?format=mkv"), ["-T", bomb]).json["id"] as? String)
        let other = try Curl.run(limited.url("/jobs/remux?format=mkv&wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        let failed = try Curl.run(limited.url("/jobs/\(victim)?wait=60")).json
        #expect(failed["state"] as? String == "failed")
        #expect((failed["error"] as? [String: Any])?["code"] as? String == "out_of_memory", "\(failed)")
        #expect(other["state"] as? String == "succeeded", "\(other)")
        #expect(try Curl.run(limited.url("/healthz")).status == 200)

        let roomy = try ServerProcess(["--job-memory", "16G"])
        let probe = try Curl.run(roomy.url("/probe"), ["-T", bomb])
        #expect(probe.status == 200, "\(probe.text)")
    }

    @Test func cancelKillsTheWorker() throws {
        let scratch = try Scratch("cancel")
        let server = try ServerProcess()
        // The cancel's SIGKILL ends a stopped process.
        let (id, worker) = try Self.heldWorker(server, ["-T", try Self.noisePCM(scratch, 1800)])
        #expect(try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String == "running")
        let cancelled = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(cancelled.json["state"] as? String == "cancelled")
        #expect(kill(worker, 0) != 0, "the worker is gone")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        #expect(outputs.isEmpty, "no partial output: \(outputs)")
    }

    /// A worker whose server is killed dies with it: it neither finishes the job behind the back of a
    /// restarted server nor traps on its next progress line to a pipe nobody reads (it used to do both).
    @Test func workerDiesWithItsServer() throws {
        let scratch = try Scratch("orphan")
        let server = try ServerProcess()
        let (id, worker) = try Self.heldWorker(server, ["-T", try Self.noisePCM(scratch, 1800)])
        _ = server.stop(SIGKILL)
        kill(worker, SIGCONT)
        for _ in 0..<300 where Self.isAlive(worker) { usleep(100_000) }
        #expect(!Self.isAlive(worker), "the worker outlived its server")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        #expect(!outputs.contains("output.m4a"), "the orphaned worker finished the job: \(outputs)")
    }

    /// The tether itself: a child whose recorded server is not (or no longer) its parent kills itself at
    /// once; one whose server is its parent runs normally.
    @Test func childWhoseServerIsGoneKillsItself() throws {
        func probe(server: Int32) throws -> (reason: Process.TerminationReason, status: Int32, output: Data) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ServerProcess.binary)
            process.arguments = ["probe", "--json", try Fixtures.h264AacMP4()]
            process.environment = ProcessInfo.processInfo.environment.merging(["MEDIAD_SERVER_PID": String(server)]) {
                $1
            }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationReason, process.terminationStatus, data)
        }
        let orphan = try probe(server: getppid())
        #expect(orphan.reason == .uncaughtSignal && orphan.status == SIGKILL, "\(orphan)")
        #expect(orphan.output.isEmpty)
        let child = try probe(server: getpid())
        #expect(child.reason == .exit && child.status == 0, "\(child)")
        let info = try JSONSerialization.jsonObject(with: child.output) as? [String: Any]
        #expect(info?["container"] as? String == "mp4")
    }

    /// Running, not merely a zombie waiting for a reaper that may never come.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        // The state follows the parenthesised command name.
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    // MARK: Helpers

    /// Kills the worker of one running job with `signal` while another job runs on the second worker.
    private func killWorker(_ signal: Int32, named name: String) throws {
        let scratch = try Scratch("kill-worker")
        let server = try ServerProcess(["--workers", "2"])
        // Half an hour of audio (over 30 s of encoding even alone): under a loaded CI the victim of 10
        // minutes once ended before the other job was even created, which then ran on the victim's warm
        // worker and took the kill instead.
        // The signal takes effect as the held worker continues.
        let (victim, worker) = try Self.heldWorker(server, ["-T", try Self.noisePCM(scratch, 1800)])
        let other = try Self.startRunning(server, ["-T", try Self.noisePCM(scratch, 60, name: "other.pcm")])
        #expect(kill(worker, signal) == 0)
        #expect(kill(worker, SIGCONT) == 0)
        let failed = try Curl.run(server.url("/jobs/\(victim)?wait=30")).json
        #expect(failed["state"] as? String == "failed")
        let error = failed["error"] as? [String: Any]
        #expect(error?["code"] as? String == "worker_crashed")
        #expect((error?["message"] as? String)?.contains(name) == true, "\(error ?? [:])")
        let succeeded = try Curl.run(server.url("/jobs/\(other)?wait=60")).json
        #expect(succeeded["state"] as? String == "succeeded", "\(succeeded)")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    /// Seconds of stereo 44.1 kHz noise as raw s16le PCM.
    static func noisePCM(_ scratch: Scratch, _ seconds: Int, name: String = "noise.pcm") throws -> String {
        let path = scratch.file(name)
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "anoisesrc=duration=\(seconds):sample_rate=44100", "-ac", "2",
                "-f", "s16le", path,
            ])
        return path
    }

    /// Submits an encode and waits until it runs with some progress (up to a minute, for a loaded machine);
    /// returns its id.
    static func startRunning(_ server: ServerProcess, _ upload: [String]) throws -> String {
        let id = try #require(try Curl.run(server.url("/jobs/encode?format=m4a"), upload).json["id"] as? String)
        for _ in 0..<1200 {
            let job = try Curl.run(server.url("/jobs/\(id)")).json
            if job["state"] as? String != "queued", job["progress"] as? Double ?? 0 > 0 { break }
            usleep(50_000)
        }
        return id
    }

    /// Submits an encode of `upload` (or the job `path` names) and returns with the worker process the job was handed to stopped
    /// (SIGSTOP). Every job worker of the server is held from the moment it appears (an idle one at once)
    /// until the job's log names the one that took the job; the others then go on. So the job cannot make
    /// any progress before the test acts on it, however loaded the machine: stopping the worker only once
    /// the log named it let a loaded CI run finish the job first.
    static func heldWorker(
        _ server: ServerProcess, _ upload: [String], submitting path: String = "/jobs/encode?format=m4a"
    ) throws -> (job: String, worker: Int32) {
        let holder = ChildProcesses.Holder(server.pid, command: "worker")
        var worker: Int32?
        defer { holder.release(keeping: worker) }
        let id = try #require(try Curl.run(server.url(path), upload).json["id"] as? String)
        for _ in 0..<3000 where worker == nil {
            worker = try Self.worker(of: server, job: id)
            if worker == nil { usleep(20_000) }
        }
        let held = try #require(worker, "job \(id) never reached a worker")
        #expect(
            try Curl.run(server.url("/jobs/\(id)")).json["progress"] as? Double ?? 0 == 0,
            "the worker made progress before it was held")
        return (id, held)
    }

    /// The pid of the worker process that ran (or runs) job `id`'s last attempt, as its log names it
    /// ("started in worker <pid>"), once it is a child of the server.
    static func worker(of server: ServerProcess, job id: String) throws -> Int32? {
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        guard let line = log.split(separator: "\n").last(where: { $0.contains("started in worker ") }),
            let pid = line.components(separatedBy: "started in worker ").last?.prefix(while: \.isNumber)
        else { return nil }
        return Int32(pid)
    }

    /// A worker that ended its job takes the next, up to `--worker-jobs`, then exits and a fresh one takes
    /// over; a worker that was killed (here by a cancel) is never given another job; and an idle worker
    /// exits with its server.
    @Test func workersTakeTheNextJobUntilTheirShareOrTheirEnd() throws {
        let scratch = try Scratch("worker-reuse")
        let server = try ServerProcess(["--workers", "1", "--worker-jobs", "3"])
        let media = try Fixtures.h264AacMP4()
        func runJob() throws -> Int32 {
            let done = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", media]).json
            #expect(done["state"] as? String == "succeeded", "\(done)")
            let id = try #require(done["id"] as? String)
            return try #require(try Self.worker(of: server, job: id))
        }
        let first = try (0..<4).map { _ in try runJob() }
        #expect(Set(first[0..<3]).count == 1, "three jobs, one worker: \(first)")
        #expect(first[3] != first[0], "the fourth job has a fresh worker: \(first)")
        #expect(!Self.isAlive(first[0]), "the worker that ran its share exited")

        let (cancelled, killed) = try Self.heldWorker(server, ["-T", try Self.noisePCM(scratch, 1800)])
        #expect(killed == first[3], "the running job took the idle worker")
        #expect(
            try Curl.run(server.url("/jobs/\(cancelled)"), ["-X", "DELETE"]).json["state"] as? String == "cancelled")
        let after = try runJob()
        #expect(after != killed, "a killed worker is not given another job")

        #expect(server.stop() == 0)
        for _ in 0..<50 where Self.isAlive(after) { usleep(100_000) }
        #expect(!Self.isAlive(after), "the idle worker exited with its server")
    }

    /// `--worker-jobs 1`: a fresh process for every job, as before workers were kept.
    @Test func workerJobsOneStartsAProcessPerJob() throws {
        let server = try ServerProcess(["--workers", "1", "--worker-jobs", "1"])
        var workers: [Int32] = []
        for _ in 0..<3 {
            let done = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", try Fixtures.h264AacMP4()])
                .json
            let id = try #require(done["id"] as? String)
            workers.append(try #require(try Self.worker(of: server, job: id)))
        }
        #expect(Set(workers).count == 3, "\(workers)")
        #expect(workers.allSatisfy { !Self.isAlive($0) }, "each worker exited after its job")
    }

    /// Ids are URL-safe base64 and one in 64 starts with "-": the worker must not read it as a flag.
    @Test func runsJobsWhoseIdStartsWithADash() throws {
        let server = try ServerProcess()
        let done = try Curl.run(server.url("/jobs/remux?format=mkv&wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        let original = try #require(done["id"] as? String)
        server.stop()
        let dashed = "-" + original.dropFirst()
        let jobs = server.dataDirectory + "/jobs/"
        // One id in 64 starts with "-" already, and stays where it is.
        if dashed != original { try FileManager.default.moveItem(atPath: jobs + original, toPath: jobs + dashed) }
        try FileManager.default.removeItem(atPath: jobs + dashed + "/outputs/output.mkv")
        let recordPath = jobs + dashed + "/job.json"
        var record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: recordPath))) as? [String: Any]
        )
        record["id"] = dashed
        record["state"] = "queued"
        record["progress"] = 0
        record["outputs"] = [Any]()
        record["started_at"] = NSNull()
        record["finished_at"] = NSNull()
        record["result"] = nil
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: recordPath))
        try server.launch()
        let rerun = try Curl.run(server.url("/jobs/\(dashed)?wait=60")).json
        #expect(rerun["state"] as? String == "succeeded", "\(rerun)")
    }
}
