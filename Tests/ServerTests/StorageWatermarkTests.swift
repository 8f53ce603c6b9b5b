import Foundation
import TestSupport
import Testing

/// `--min-free-disk`: uploads that would take the disk below the reserve get 507, running jobs that would
/// stop with `insufficient_storage`, and neither leaves a byte behind.
@Suite(.serialized) struct StorageWatermarkTests {
    @Test func uploadsGet507BeforeTheBodyWhenTheDiskIsBelowTheReserve() throws {
        let server = try ServerProcess(["--min-free-disk", "1000T"])
        for (path, upload) in [("/jobs/remux", try Fixtures.h264AacMP4()), ("/probe", try Fixtures.h264AacMP4())] {
            let reply = try Curl.run(server.url(path), ["-T", upload])
            #expect(reply.status == 507, "\(path): \(reply.text)")
            #expect(reply.errorCode == "insufficient_storage")
            #expect(reply.text.contains("--min-free-disk"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }

    /// A body whose length is not announced (chunked) is cut off when it reaches the reserve; one that
    /// announces a length that would cross it is refused from the head.
    @Test(.enabled(if: TmpfsMount.isAvailable)) func uploadsThatWouldCrossTheReserveAreRefused() throws {
        let disk = try TmpfsMount(megabytes: 64)
        let scratch = try Scratch("watermark-upload")
        let big = try scratch.write("big.pcm", [UInt8](repeating: 7, count: 56 << 20))
        let server = try ServerProcess(dataDirectory: disk.path + "/data", ["--min-free-disk", "16M"])
        let announced = try Curl.run(server.url("/jobs/encode?format=adts"), ["-T", big])
        #expect(announced.status == 507, "\(announced.text)")
        let chunked = try Curl.run(
            server.url("/jobs/encode?format=adts"), ["-T", big, "-H", "Transfer-Encoding: chunked"])
        #expect(chunked.status == 507, "\(chunked.text)")
        #expect(chunked.errorCode == "insufficient_storage")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").isEmpty)
        #expect(disk.freeBytes > 60 << 20, "the cut-off upload's bytes were given back")
    }

    /// An encode to WAV writes as many bytes as it reads: a 30 MB input on a 64 MB disk that keeps 16 MB
    /// free cannot finish. The job fails with `insufficient_storage`, its partial output is gone, the
    /// space is back, and a small job then succeeds.
    @Test(.enabled(if: TmpfsMount.isAvailable), arguments: ["process", "none"])
    func aRunningJobStopsAtTheReserve(isolation: String) throws {
        let disk = try TmpfsMount(megabytes: 64)
        let scratch = try Scratch("watermark-job")
        let pcm = try IsolationTests.noisePCM(scratch, 170)
        let server = try ServerProcess(
            dataDirectory: disk.path + "/data", ["--min-free-disk", "16M", "--isolation", isolation])
        let job = try Curl.run(
            server.url("/jobs/encode?format=wav&sample_rate=44100&channels=2&wait=60"), ["-T", pcm]
        ).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "insufficient_storage", "\(job)")
        let id = try #require(job["id"] as? String)
        let outputs = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs/\(id)/outputs")
        #expect(outputs.isEmpty, "no partial output: \(outputs)")
        #expect(disk.freeBytes > 30 << 20, "the partial output's space is back")
        let small = try Curl.run(
            server.url("/jobs/encode?format=m4a&wait=60"),
            ["-T", try IsolationTests.noisePCM(scratch, 2, name: "s.pcm")]
        ).json
        #expect(small["state"] as? String == "succeeded", "\(small)")
    }
}
