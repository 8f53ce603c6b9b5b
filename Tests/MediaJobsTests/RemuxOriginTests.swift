import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// An input whose clock starts late (an MPEG-TS capture, 1.4 s in here) remuxes to an output that starts
/// at zero, the tracks keeping their offsets to one another, as `ffmpeg -c copy` does without `-copyts`:
/// before, mp4 opened with 1.4 s of empty edit and each TS generation started 1.4 s later.
/// The offsets of the tracks to one another are the input's: to the tick in mp4 and TS, to the
/// millisecond in Matroska.
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

    static func starts(_ path: String) throws -> [Double] {
        try Oracle.streams(path).map { Double($0["start_time"] as? String ?? "") ?? .nan }
    }

    static func duration(_ path: String) throws -> Double {
        Double(try Oracle.format(path)["duration"] as? String ?? "") ?? .nan
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
        // The CLI's mp4 states the tracks' offset in milliseconds; mediad's to the tick (its movie timescale
        // is a multiple of the tracks'), so it keeps the input's offset exactly. Matroska counts milliseconds.
        let offsets = { (starts: [Double]) in starts.map { $0 - (starts.min() ?? 0) } }
        let starts = try Self.starts(output)
        let expected = offsets(try Self.starts(input))
        let precision = format == .mkv ? 0.001 : 0.000_002
        #expect(
            zip(offsets(starts), expected).allSatisfy { abs($0 - $1) <= precision }, "\(starts) against \(expected)")
        #expect(zip(starts, try Self.starts(reference)).allSatisfy { abs($0 - $1) <= 0.001 })
        #expect(abs(try Self.duration(output) - Self.duration(reference)) <= 0.001)
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
