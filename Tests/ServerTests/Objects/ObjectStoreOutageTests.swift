import Foundation
import TestSupport
import Testing

/// `serve --objects` through an outage of its store (SeaweedFS killed, then restarted on its ports and
/// data): a raw upload and a job's outputs going up ride it out within `--s3-retry-window` (the server logs
/// that it retries; the test restarts the store once it does), their bytes whole; with a small window, the
/// submission ends 503 `storage_unavailable` with `Retry-After` and the job fails `storage_unavailable`, and
/// once the store is back nothing is left in the bucket: no object presented as whole, no multipart upload.
@Suite(.serialized) struct ObjectStoreOutageTests {
    /// 110 s of 48 kHz stereo 16-bit PCM in WAV: 21 MB, so that a raw body goes up as a multipart upload of
    /// three parts (8 MiB each but the last), and so does its remux (outputs over 16 MiB).
    static func longWAV() throws -> String {
        try Fixtures.make(
            "outage-tone.wav",
            [
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=110", "-ac", "2", "-c:a",
                "pcm_s16le", "-f", "wav",
            ])
    }

    /// A server on `s3` under `prefix` with `window`, logging to `log`.
    static func server(_ s3: SeaweedFS, prefix: String, window: String, log: String, _ more: [String] = []) throws
        -> ServerProcess
    {
        try ServerProcess(
            ObjectStorageServeTests.objectFlags(s3, prefix: prefix) + ["--s3-retry-window", window] + more,
            environment: SeaweedFS.credentialsEnvironment, logFile: log)
    }

    /// Waits (a few minutes at most) until the server's log at `path` has a line containing `text`.
    static func waitForLog(_ path: String, _ text: String) throws {
        for _ in 0..<3000 {
            if (try? String(contentsOfFile: path, encoding: .utf8))?.contains(text) == true { return }
            usleep(100_000)
        }
        Issue.record("the server never logged \"\(text)\"")
    }

    /// Waits until the server has started an upload under `prefix` (boto3 lists it).
    static func waitForUpload(_ s3: SeaweedFS, under prefix: String) throws {
        for _ in 0..<600 {
            if try !s3.list(prefix).uploads.isEmpty { return }
            usleep(100_000)
        }
        Issue.record("no multipart upload was started under \(prefix)")
    }

    /// The decoded audio of `file`, as ffmpeg's MD5 of its PCM: the oracle that a remux kept every sample.
    static func audioMD5(_ file: String) throws -> String {
        try Command.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:a", "-c:a", "pcm_s16le", "-f", "md5", "-"])
            .text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aRawUploadRidesOutTheStoreStoppingMidBody() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("outage-raw")
        let log = scratch.file("server.log")
        let server = try Self.server(s3, prefix: "raw", window: "10m", log: log)
        let source = try Data(contentsOf: URL(fileURLWithPath: try Self.longWAV()))
        let upload = try PipedUpload(server.url("/jobs/remux?format=mkv&filename=tone.wav"), scratch: scratch)
        // Two whole parts of the body: the multipart upload starts.
        try upload.write(source.prefix(17 << 20))
        try Self.waitForUpload(s3, under: "raw/jobs/")
        s3.stop()
        upload.writeInBackground(source.dropFirst(17 << 20))
        try Self.waitForLog(log, "retrying for up to 600s")
        #expect(upload.isRunning, "the client's connection stays open while the store is down")
        try s3.restart()
        let reply = try upload.finish()
        #expect(reply.status == 202, "\(reply.text)")
        let id = try #require(reply.json["id"] as? String)
        let inputs = try s3.list("raw/jobs/\(id)/inputs/")
        #expect(inputs.objects.count == 1 && inputs.uploads.isEmpty, "\(inputs)")
        let stored = try s3.read(try #require(inputs.objects.first))
        #expect(stored["size"] as? Int == source.count)
        #expect(stored["sha256"] as? String == (try ObjectStorageServeTests.sha256(Self.longWAV())))
        let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
    }

    @Test func aRawUploadFailsWith503WhenTheStoreStaysDownAndLeavesNothing() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("outage-raw-down")
        let log = scratch.file("server.log")
        let server = try Self.server(s3, prefix: "rawdown", window: "1s", log: log)
        let source = try Data(contentsOf: URL(fileURLWithPath: try Self.longWAV()))
        let upload = try PipedUpload(server.url("/jobs/remux?format=mkv&filename=tone.wav"), scratch: scratch)
        try upload.write(source.prefix(17 << 20))
        try Self.waitForUpload(s3, under: "rawdown/jobs/")
        s3.stop()
        upload.writeInBackground(source.dropFirst(17 << 20))
        let reply = try upload.finish()
        #expect(reply.status == 503, "\(reply.text)")
        #expect(reply.errorCode == "storage_unavailable", "\(reply.text)")
        #expect(reply.headers["retry-after"] == "5", "\(reply.headers)")

        // Once the store answers again, the upload is aborted and whatever the submission put is removed.
        try s3.restart()
        try Self.waitForLog(log, "removed what failed uploads left in the bucket")
        let left = try s3.list("rawdown/jobs/")
        #expect(left.objects.isEmpty && left.uploads.isEmpty, "\(left)")
        #expect((try Curl.run(server.url("/jobs")).json["jobs"] as? [Any])?.isEmpty == true)
    }

    @Test func aJobsOutputsRideOutTheStoreStoppingAsTheyGoUp() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("outage-output")
        let log = scratch.file("server.log")
        let server = try Self.server(s3, prefix: "out", window: "10m", log: log, ["--workers", "1"])
        let source = try Self.longWAV()
        let (id, worker) = try IsolationTests.heldWorker(server, ["-T", source], submitting: "/jobs/remux?format=mkv")
        s3.stop()
        kill(worker, SIGCONT)
        try Self.waitForLog(log, "retrying for up to 600s")
        #expect(try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String == "running")
        try s3.restart()
        let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let output = try #require((job["outputs"] as? [[String: Any]])?.first)
        let name = try #require(output["name"] as? String)
        #expect((output["size"] as? Int ?? 0) > 16 << 20, "a multipart upload: \(output)")
        let stored = try s3.read("out/jobs/\(id)/runs/1/outputs/\(name)")
        #expect(stored["sha256"] as? String == output["sha256"] as? String)
        #expect(stored["size"] as? Int == output["size"] as? Int)
        #expect(try s3.list("out/jobs/\(id)/").uploads.isEmpty)
        let downloaded = scratch.file("downloaded.mkv")
        let body = try Curl.run(server.url("/jobs/\(id)/output"), ["-L"])
        #expect(body.status == 200)
        try body.body.write(to: URL(fileURLWithPath: downloaded))
        #expect(try ObjectStorageServeTests.sha256(downloaded) == output["sha256"] as? String)
        #expect(try Self.audioMD5(downloaded) == Self.audioMD5(source))
    }

    @Test func aJobFailsStorageUnavailableWhenTheStoreStaysDownAndLeavesNoOutput() throws {
        let s3 = try SeaweedFS()
        let scratch = try Scratch("outage-output-down")
        let log = scratch.file("server.log")
        let server = try Self.server(s3, prefix: "outdown", window: "1s", log: log, ["--workers", "1"])
        let (id, worker) = try IsolationTests.heldWorker(
            server, ["-T", try Self.longWAV()], submitting: "/jobs/remux?format=mkv")
        s3.stop()
        kill(worker, SIGCONT)
        let job = try Curl.run(server.url("/jobs/\(id)?wait=120")).json
        #expect(job["state"] as? String == "failed", "\(job)")
        #expect((job["error"] as? [String: Any])?["code"] as? String == "storage_unavailable", "\(job)")
        #expect((job["outputs"] as? [Any])?.isEmpty == true, "\(job)")
        #expect(try Curl.run(server.url("/jobs/\(id)/output")).status == 409)

        try s3.restart()
        try Self.waitForLog(log, "removed what failed uploads left in the bucket")
        let left = try s3.list("outdown/jobs/\(id)/runs/1/outputs/")
        #expect(left.objects.isEmpty && left.uploads.isEmpty, "\(left)")
        #expect(try s3.list("outdown/jobs/").uploads.isEmpty)
    }
}

/// curl sending a request body it reads from a pipe (`-T -`, chunked), so that the test decides when each
/// piece of the body is there to send.
private final class PipedUpload: @unchecked Sendable {
    // Used from the test's thread, and `writeInBackground` from one thread of its own.
    private let process = Process()
    private let input = Pipe()
    private let headerFile: String
    private let bodyFile: String
    private let writer = DispatchGroup()

    init(_ url: String, scratch: Scratch) throws {
        headerFile = scratch.file("piped.headers")
        bodyFile = scratch.file("piped.body")
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "-D", headerFile, "-o", bodyFile, "-T", "-", url]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// Writes `bytes`, waiting while curl (and behind it the server) takes them no faster.
    func write(_ bytes: Data) throws { try input.fileHandleForWriting.write(contentsOf: bytes) }

    /// Writes `bytes` and ends the body from a thread of its own: the server may stop reading meanwhile.
    func writeInBackground(_ bytes: Data) {
        let handle = input.fileHandleForWriting
        writer.enter()
        Thread.detachNewThread { [writer] in
            try? handle.write(contentsOf: bytes)
            try? handle.close()
            writer.leave()
        }
    }

    /// Waits (a few minutes at most) for curl to end and returns the answer it read.
    func finish() throws -> Curl.Reply {
        for _ in 0..<3000 where process.isRunning { usleep(100_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = writer.wait(timeout: .now() + 60)
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        let block = headers.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        let lines = block.split(separator: "\r\n")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        return Curl.Reply(
            status: status, headers: fields, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data(),
            rawHeaders: headers, seconds: 0)
    }
}
