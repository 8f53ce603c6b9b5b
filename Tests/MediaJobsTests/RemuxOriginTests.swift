import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// An input whose clock starts late (an MPEG-TS capture, 1.4 s in here) remuxes to an output that starts
/// at zero, the tracks keeping their offsets to one another, as `ffmpeg -c copy` does without `-copyts`:
/// before, mp4 opened with 1.4 s of empty edit and each TS generation started 1.4 s later.
@Suite struct RemuxOriginTests {
    static func lateTransportStream() throws -> String {
        try Fixtures.make(
            "late-clock.ts",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3", "-f", "lavfi", "-i",
                "sine=duration=3", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-c:a", "aac",
                "-output_ts_offset", "5", "-f", "mpegts",
            ])
    }

    static func starts(_ path: String) throws -> [String] {
        try Oracle.streams(path).map { $0["start_time"] as? String ?? "?" }
    }

    @Test(arguments: [ContainerFormat.mp4, .mkv, .ts])
    func startsAtZeroLikeTheFFmpegCLI(_ format: ContainerFormat) throws {
        let input = try Self.lateTransportStream()
        #expect(try Double(Oracle.format(input)["start_time"] as? String ?? "") ?? 0 > 5)
        let scratch = try Scratch("origin")
        let output = scratch.file("out.\(format.fileExtension)")
        _ = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        let reference = scratch.file("ffmpeg.\(format.fileExtension)")
        try Command.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", reference])
        #expect(try Self.starts(output) == Self.starts(reference))
        #expect(
            try Oracle.format(output)["duration"] as? String == Oracle.format(reference)["duration"] as? String)
        let problems = try Lossless.problems(input: input, output: output, primingMayShow: format != .mp4)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A second generation starts where the first did.
    @Test func aTransportStreamRemuxedTwiceStartsWhereItDid() throws {
        let scratch = try Scratch("origin-twice")
        let once = scratch.file("once.ts")
        let twice = scratch.file("twice.ts")
        _ = try RemuxJob(input: try Self.lateTransportStream(), output: once, options: try .init(format: .ts))
            .run(JobContext())
        _ = try RemuxJob(input: once, output: twice, options: try .init(format: .ts)).run(JobContext())
        #expect(try Self.starts(twice) == Self.starts(once))
    }
}
