import Foundation
import TestSupport
import Testing

/// Jobs that run out of the address space `--job-memory` gives their worker fail as `out_of_memory`
/// whoever failed to allocate: x264 and x265, which turn a failed allocation into "Generic error in an
/// external library" (it was `internal_error`), and Swift code, where the runtime aborts the worker (it was
/// `worker_crashed`, SIGABRT). The server and a job after them carry on.
@Suite(.serialized) struct MemoryLimitTests {
    /// One second of 64x48 video at 240 fps: enough to reach an encoder.
    static func fastClip() throws -> String {
        try Fixtures.make(
            "memory_240fps.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=240:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-f", "mp4",
            ])
    }

    /// The clip scaled to 4096x4096 (at 240 fps, as the attack that found this did) under 1 GiB: the
    /// encoder's frames do not fit.
    @Test(arguments: ["h264", "hevc"])
    func anEncoderOutOfMemoryIsOutOfMemory(_ codec: String) throws {
        let server = try ServerProcess(["--job-memory", "1G"])
        let job = try Curl.run(
            server.url(
                "/jobs/transcode?video_codec=\(codec)&format=mkv&width=4096&height=4096&preset=ultrafast&wait=120"),
            ["-T", try Self.fastClip()]
        ).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "out_of_memory", "\(job)")
        #expect((error?["message"] as? String)?.contains("allocation") == true, "\(job)")
        let after = try Curl.run(
            server.url("/jobs/transcode?video_codec=\(codec)&format=mkv&preset=ultrafast&wait=120"),
            ["-T", try Self.fastClip()]
        ).json
        #expect(after["state"] as? String == "succeeded", "\(after)")
    }

    /// Half an hour of 48 kHz silence (FLAC, a few hundred kB) with a pair every 2 samples: the peaks
    /// array grows past 500 MB, and the Swift runtime aborts the worker when that allocation fails.
    @Test func aSwiftAllocationOutOfMemoryIsOutOfMemory() throws {
        let silence = try Fixtures.make(
            "memory_silence.mka",
            ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "1800", "-c:a", "flac", "-f", "matroska"])
        let server = try ServerProcess(["--job-memory", "1G"])
        let job = try Curl.run(
            server.url("/jobs/waveform?samples_per_pixel=2&wait=300"), ["-T", silence]
        ).json
        #expect(job["state"] as? String == "failed", "\(job)")
        let error = job["error"] as? [String: Any]
        #expect(error?["code"] as? String == "out_of_memory", "\(job)")
        let id = try #require(job["id"] as? String)
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("an allocation of"), "the worker's stderr names the allocation: \(log)")
        #expect(try Curl.run(server.url("/healthz")).status == 200)
    }
}
