import Foundation
import TestSupport
import Testing

/// What a job may write: a decode whose raw frames would pass it is refused before it decodes anything,
/// and writes whose size nobody could tell up front fail as they pass `--max-output` with
/// `output_too_large`, in a worker process (where the kernel stops the file) and in the server's own.
@Suite(.serialized) struct OutputAllowanceTests {
    /// 1 s of black 3840x2160 at 30 fps, x264 ultrafast: about 26 kB that decode to 373 MB of Y4M.
    static func black2160p() throws -> String {
        try Fixtures.make(
            "black2160p.mp4",
            [
                "-f", "lavfi", "-i", "color=black:size=3840x2160:rate=30:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-pix_fmt", "yuv420p",
            ])
    }

    /// The outputs a job left, temporary ones included.
    static func outputs(_ server: ServerProcess, _ id: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
    }

    @Test(arguments: ["process", "none"])
    func aTinyDecodeOfHugeFramesIsRefusedBeforeDecoding(isolation: String) throws {
        let input = try Self.black2160p()
        #expect(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int ?? 0 < 100_000)
        let server = try ServerProcess(["--max-output", "50M", "--isolation", isolation])
        let job = try Curl.run(server.url("/jobs/decode?format=y4m&wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "output_too_large", "\(job)")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("30 frames of 3840x2160 yuv420p as y4m"), "\(message)")
        #expect(message.contains("refused before decoding") && message.contains("--max-output"), "\(message)")
        let id = try #require(job["id"] as? String)
        #expect(try Self.outputs(server, id).isEmpty)
        let log = try String(contentsOfFile: server.dataDirectory + "/jobs/\(id)/job.log", encoding: .utf8)
        #expect(log.contains("output_too_large"), "\(log)")
    }

    /// The same decode on a server whose disk cannot take it above its reserve is refused up front with
    /// `insufficient_storage`, rather than written until the reserve stops it; the disk is untouched.
    @Test(.enabled(if: TmpfsMount.isAvailable)) func aDecodeTheDiskCannotTakeIsRefusedBeforeDecoding() throws {
        let disk = try TmpfsMount(megabytes: 64)
        let server = try ServerProcess(dataDirectory: disk.path + "/data", ["--min-free-disk", "16M"])
        let job = try Curl.run(server.url("/jobs/decode?format=y4m&wait=60"), ["-T", try Self.black2160p()]).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "insufficient_storage", "\(job)")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("refused before decoding") && message.contains("--min-free-disk"), "\(message)")
        #expect(try Self.outputs(server, try #require(job["id"] as? String)).isEmpty)
    }

    /// A decode that fits its allowance runs as before.
    @Test func aDecodeThatFitsRuns() throws {
        let input = try Fixtures.make(
            "black240p.mp4",
            [
                "-f", "lavfi", "-i", "color=black:size=320x240:rate=30:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-pix_fmt", "yuv420p",
            ])
        let server = try ServerProcess(["--max-output", "4M"])
        let job = try Curl.run(server.url("/jobs/decode?format=y4m&wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
    }

    /// A remux writes about what it reads, which nothing tells before it runs: past `--max-output` it fails
    /// with `output_too_large` (not `io_error`, as a write stopped by RLIMIT_FSIZE used to), its partial
    /// output removed, whether the kernel (a worker) or the server's own measure stops it.
    @Test(arguments: ["process", "none"])
    func writesPastMaxOutputFailAsOutputTooLarge(isolation: String) throws {
        let input = try Fixtures.make(
            "noise-video.mkv",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2", "-vf", "noise=alls=40:allf=t",
                "-c:v", "libx264", "-preset", "ultrafast", "-qp", "20",
            ])
        let size = try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int ?? 0
        #expect(size > 2 << 20, "the input is larger than the limit: \(size) bytes")
        let server = try ServerProcess(["--max-output", "1M", "--isolation", isolation])
        let job = try Curl.run(server.url("/jobs/remux?format=mp4&faststart=false&wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "output_too_large", "\(job)")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("--max-output"), "\(message)")
        #expect(try Self.outputs(server, try #require(job["id"] as? String)).isEmpty)
    }
}
