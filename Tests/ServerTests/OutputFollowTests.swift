import Foundation
import TestSupport
import Testing

/// `GET /jobs/{id}/outputs/{name}` on a running job: an output written front to back (MPEG-TS, fragmented
/// MP4 without a global `sidx`) is sent as it grows and followed to the job's end, ending with exactly the
/// final file's bytes; a job that is cancelled meanwhile cuts the transfer; an output not written yet and
/// one rewritten at the end are 409 with their codes. The job's worker is held (SIGSTOP) while the test
/// acts, and let go only once the download follows the file.
@Suite struct OutputFollowTests {
    @Test func transportStreamIsFollowedToItsEnd() throws {
        try followToTheEnd("format=ts", output: "output.ts")
    }

    @Test func fragmentedMP4WithoutGlobalIndexIsFollowedToItsEnd() throws {
        try followToTheEnd("format=mp4&fragmented=true&global_sidx=false", output: "output.mp4")
    }

    @Test func cancellingTheJobCutsTheDownload() throws {
        let scratch = try Scratch("follow-cancel")
        let server = try ServerProcess()
        let (id, worker) = try Self.partlyWritten(server, scratch, "format=ts", output: "output.ts")
        let download = try FollowingDownload(server.url("/jobs/\(id)/outputs/output.ts"), into: scratch)
        let head = try Curl.run(server.url("/jobs/\(id)/outputs/output.ts"), ["-I"])
        #expect(head.status == 200 && head.headers["content-type"] == "video/mp2t")
        // Cancelled held: a worker let go could finish first on a loaded machine. The kill ends it all the same.
        _ = worker
        let cancelled = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(cancelled.json["state"] as? String == "cancelled")
        let status = download.finish()
        // 18: "transfer closed with outstanding read data remaining", the body's last chunk never came.
        #expect(status == 18, "curl ended with \(status): \(download.errors)")
    }

    @Test func outputsNotWrittenOrRewrittenAtTheEndAreConflicts() throws {
        let scratch = try Scratch("follow-refused")
        let server = try ServerProcess()
        let input = try Self.noiseVideo(scratch)
        let (ts, _) = try IsolationTests.heldWorker(server, ["-T", input], submitting: "/jobs/transcode?format=ts")
        let early = try Curl.run(server.url("/jobs/\(ts)/output"))
        #expect(early.status == 409 && early.errorCode == "output_not_written", "\(early.text)")
        _ = try Curl.run(server.url("/jobs/\(ts)"), ["-X", "DELETE"])

        let (mkv, _) = try IsolationTests.heldWorker(server, ["-T", input], submitting: "/jobs/transcode?format=mkv")
        let rewritten = try Curl.run(server.url("/jobs/\(mkv)/outputs/output.mkv"))
        #expect(rewritten.status == 409 && rewritten.errorCode == "output_not_ready", "\(rewritten.text)")
        #expect(rewritten.errorMessage.contains("rewritten when the job ends"))
        let unknown = try Curl.run(server.url("/jobs/\(mkv)/outputs/other.mkv"))
        #expect(unknown.status == 404)
        _ = try Curl.run(server.url("/jobs/\(mkv)"), ["-X", "DELETE"])

        let (indexed, _) = try IsolationTests.heldWorker(
            server, ["-T", input], submitting: "/jobs/remux?format=mp4&fragmented=true")
        let withSidx = try Curl.run(server.url("/jobs/\(indexed)/output"))
        #expect(withSidx.status == 409 && withSidx.errorCode == "output_not_ready", "\(withSidx.text)")
        _ = try Curl.run(server.url("/jobs/\(indexed)"), ["-X", "DELETE"])

        let loose = try Curl.run(server.url("/jobs/remux?format=ts&global_sidx=false"), ["-T", input])
        #expect(loose.status == 400 && loose.errorCode == "invalid_option", "\(loose.text)")
    }

    /// Transcodes noise with `query`, starts a download of `output` once part of it is written, lets the
    /// job end, and compares what the download received with the output served after the end.
    private func followToTheEnd(_ query: String, output: String) throws {
        let scratch = try Scratch("follow")
        let server = try ServerProcess()
        let (id, worker) = try Self.partlyWritten(server, scratch, query, output: output)
        let download = try FollowingDownload(server.url("/jobs/\(id)/outputs/\(output)"), into: scratch)
        #expect(download.headers.lowercased().contains("transfer-encoding: chunked"), "\(download.headers)")
        #expect(!download.headers.lowercased().contains("\r\ncontent-length:"), "\(download.headers)")
        kill(worker, SIGCONT)
        let ended = try Curl.run(server.url("/jobs/\(id)?wait=300")).json
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        let status = download.finish()
        #expect(status == 0, "curl ended with \(status): \(download.errors)")
        let final = try Curl.run(server.url("/jobs/\(id)/outputs/\(output)"))
        #expect(final.status == 200)
        let followed = try Data(contentsOf: URL(fileURLWithPath: download.body))
        #expect(
            followed.count == final.body.count && followed == final.body, "\(followed.count) vs \(final.body.count)")
        let listed = (ended["outputs"] as? [[String: Any]])?.first { $0["name"] as? String == output }
        let digest = try Command.run("sha256sum", [download.body]).text.prefix(64)
        #expect(listed?["sha256"] as? String == String(digest))
    }

    /// Submits a transcode of noise with `query`, holds its worker, lets it go until its temporary output
    /// file for `output` holds bytes, and holds it again: the job runs, part of its output written.
    static func partlyWritten(
        _ server: ServerProcess, _ scratch: Scratch, _ query: String, output: String
    ) throws -> (job: String, worker: Int32) {
        let input = try noiseVideo(scratch)
        let (id, worker) = try IsolationTests.heldWorker(server, ["-T", input], submitting: "/jobs/transcode?" + query)
        try letWrite(server, job: id, worker: worker, output: output)
        return (id, worker)
    }

    /// Lets the held `worker` of job `id` go until its temporary file for `output` holds bytes, and holds it
    /// again (stopped, as the kernel shows it) while the job runs.
    static func letWrite(_ server: ServerProcess, job id: String, worker: Int32, output: String) throws {
        kill(worker, SIGCONT)
        // Seconds of encoding lie between the first bytes and the end: polled this often, the worker is held
        // again long before it could finish, however loaded the machine.
        for _ in 0..<60000 where written(server, job: id, output: output) == 0 { usleep(2000) }
        #expect(ChildProcesses.stop(worker), "the worker ended before it was held again")
        #expect(written(server, job: id, output: output) > 0, "the worker wrote nothing of \(output)")
        let state = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String
        try #require(state == "running", "the job ended before it was held again: \(state ?? "")")
    }

    /// The bytes job `id`'s worker has written of `output` so far: the size of its temporary file.
    static func written(_ server: ServerProcess, job id: String, output: String) -> Int {
        let directory = server.dataDirectory + "/jobs/\(id)/outputs"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasPrefix(".\(output).partial-") }.map { entry in
            var status = stat()
            return stat(directory + "/" + entry, &status) == 0 ? Int(status.st_size) : 0
        }.max() ?? 0
    }

    /// Eight seconds of 320x240 noise at 25 fps as H.264 in MP4: seconds to encode again, megabytes of output.
    static func noiseVideo(_ scratch: Scratch) throws -> String {
        let path = scratch.file("noise.mp4")
        if FileManager.default.fileExists(atPath: path) { return path }
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8,noise=alls=80:allf=t+u",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path,
            ])
        return path
    }
}

/// A `curl` download running in the background, started once its response head has arrived.
private final class FollowingDownload {
    let process = Process()
    let body: String
    let headerFile: String
    let errorFile: String

    init(_ url: String, into scratch: Scratch) throws {
        body = scratch.file("followed.\(UUID().uuidString)")
        headerFile = body + ".headers"
        errorFile = body + ".errors"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "-D", headerFile, "-o", body, url]
        process.standardError = FileHandle(forWritingAtPath: errorFile)
        try process.run()
        // The head goes out at once, before the worker writes more: wait for it (a minute at most).
        for _ in 0..<1200 where !headers.contains("\r\n\r\n") && process.isRunning { usleep(50_000) }
        #expect(headers.hasPrefix("HTTP/1.1 200"), "\(headers)")
    }

    var headers: String { (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    /// Waits for curl to end; its exit status.
    func finish() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
