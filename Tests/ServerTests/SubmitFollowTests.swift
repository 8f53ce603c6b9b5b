import Foundation
import TestSupport
import Testing

/// `mediad submit` downloads a primary output the server can follow while the job writes it: the bytes are
/// in the output directory (hidden) before the job ends, the file is put in place only when it is exactly
/// the listed output, a job that fails meanwhile leaves nothing, and an output rewritten at the end is
/// downloaded after the end as before. The job's worker is held (SIGSTOP) while the test looks.
@Suite(.serialized) struct SubmitFollowTests {
    @Test func downloadsAFollowableOutputWhileTheJobRuns() throws {
        let scratch = try Scratch("submit-follow")
        let server = try ServerProcess()
        let out = scratch.file("out")
        let run = try HeldSubmission(
            server, scratch, ["format=mp4", "fragmented=true", "global_sidx=false"], into: out)
        try OutputFollowTests.letWrite(server, job: run.id, worker: run.worker, output: "output.mp4")
        // Held with part of the output written: submit's hidden file takes in all of it while the job runs.
        let written = OutputFollowTests.written(server, job: run.id, output: "output.mp4")
        for _ in 0..<1200 where Self.partialBytes(out) < written { usleep(50_000) }
        #expect(Self.partialBytes(out) == written, "submit holds \(Self.partialBytes(out)) of \(written) bytes")
        #expect(try Curl.run(server.url("/jobs/\(run.id)")).json["state"] as? String == "running")
        kill(run.worker, SIGCONT)
        let result = run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let path = out + "/noise.mp4"
        #expect(result.stdout == path + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["noise.mp4"])
        let job = try Curl.run(server.url("/jobs/\(run.id)")).json
        let listed = (job["outputs"] as? [[String: Any]])?.first { $0["name"] as? String == "output.mp4" }
        #expect(listed?["sha256"] as? String == String(try Command.run("sha256sum", [path]).text.prefix(64)))
    }

    @Test func aJobThatFailsWhileFollowedLeavesNothing() throws {
        let scratch = try Scratch("submit-follow-fail")
        let server = try ServerProcess()
        let out = scratch.file("out")
        let run = try HeldSubmission(server, scratch, ["format=ts"], into: out)
        try OutputFollowTests.letWrite(server, job: run.id, worker: run.worker, output: "output.ts")
        for _ in 0..<1200 where Self.partialBytes(out) == 0 { usleep(50_000) }
        #expect(Self.partialBytes(out) > 0, "submit never started the download")
        kill(run.worker, SIGKILL)
        let result = run.finish()
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: worker_crashed: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    /// Matroska is completed at the end: submit asks (409 `output_not_ready`, in the server's request log)
    /// and downloads the output once the job succeeded.
    @Test func anOutputRewrittenAtTheEndDownloadsAfterTheJob() throws {
        let scratch = try Scratch("submit-follow-mkv")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--log-format", "json"], logFile: log)
        let out = scratch.file("out")
        let run = try HeldSubmission(server, scratch, ["format=mkv"], into: out)
        func requests(_ path: String) -> [Int] {
            let objects = (try? RequestLoggingTests.lines(log)) ?? []
            return objects.compactMap { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let request = object?["metadata"] as? [String: Any]
                return request?["path"] as? String == path ? request?["status"] as? Int : nil
            }
        }
        for _ in 0..<1200 where requests("/jobs/\(run.id)/output").isEmpty { usleep(50_000) }
        #expect(requests("/jobs/\(run.id)/output") == [409])
        #expect(try Curl.run(server.url("/jobs/\(run.id)")).json["state"] as? String == "running")
        kill(run.worker, SIGCONT)
        let result = run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(requests("/jobs/\(run.id)/outputs/output.mkv") == [200])
        let path = out + "/noise.mkv"
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["noise.mkv"])
        let job = try Curl.run(server.url("/jobs/\(run.id)")).json
        let listed = (job["outputs"] as? [[String: Any]])?.first
        #expect(listed?["sha256"] as? String == String(try Command.run("sha256sum", [path]).text.prefix(64)))
    }

    /// The bytes of the hidden files a download is writing in `directory`.
    static func partialBytes(_ directory: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasSuffix(".partial") }.reduce(0) { total, entry in
            var status = stat()
            return total + (stat(directory + "/" + entry, &status) == 0 ? Int(status.st_size) : 0)
        }
    }
}

/// `mediad submit transcode` of noise running in the background, its job's worker found and held
/// (SIGSTOP) before it made any progress.
private final class HeldSubmission {
    let process = Process()
    let id: String
    let worker: Int32
    private let stdoutFile: String
    private let stderrFile: String

    init(_ server: ServerProcess, _ scratch: Scratch, _ options: [String], into directory: String) throws {
        let input = try OutputFollowTests.noiseVideo(scratch)
        stdoutFile = scratch.file("submit.\(UUID().uuidString).out")
        stderrFile = stdoutFile + ".err"
        for file in [stdoutFile, stderrFile] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        let holder = ChildProcesses.Holder(server.pid, command: "worker")
        var held: Int32?
        defer { holder.release(keeping: held) }
        process.executableURL = URL(fileURLWithPath: ServerProcess.binary)
        process.arguments =
            ["submit", "transcode", input, "--server", server.baseURL, "-o", directory]
            + options.flatMap { ["--option", $0] }
        process.standardOutput = FileHandle(forWritingAtPath: stdoutFile)
        process.standardError = FileHandle(forWritingAtPath: stderrFile)
        try process.run()
        var job: String?
        for _ in 0..<3000 where job == nil {
            let jobs = try Curl.run(server.url("/jobs")).json["jobs"] as? [[String: Any]]
            job = jobs?.first?["id"] as? String
            if job == nil { usleep(20_000) }
        }
        let errors = stderrFile
        id = try #require(
            job, "submit never created its job: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        for _ in 0..<3000 where held == nil {
            held = try IsolationTests.worker(of: server, job: id)
            if held == nil { usleep(20_000) }
        }
        worker = try #require(held, "job \(id) never reached a worker")
    }

    var stdout: String { (try? String(contentsOfFile: stdoutFile, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "" }

    /// Waits for submit to end: its exit status and what it printed.
    func finish() -> (status: Int32, stdout: String, stderr: String) {
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }
}
