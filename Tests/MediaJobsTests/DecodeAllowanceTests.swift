import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// A decode tells its output's size from the input's description and refuses, before it decodes anything,
/// an output over its `OutputAllowance`, with the code of the limit it passes.
@Suite struct DecodeAllowanceTests {
    /// 1 s of black video at 30 fps, x264 ultrafast, in `container` (an extension ffmpeg writes).
    static func black(_ size: String, _ container: String) throws -> String {
        try Fixtures.make(
            "black-\(size).\(container)",
            [
                "-f", "lavfi", "-i", "color=black:size=\(size):rate=30:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-pix_fmt", "yuv420p",
            ])
    }

    static func decode(_ input: String, to output: String, _ allowance: OutputAllowance, format: String = "y4m")
        throws -> DecodeResult
    {
        try DecodeJob(input: input, output: output, options: try .init(parsing: ["format": format]))
            .run(JobContext(outputAllowance: allowance))
    }

    /// The frame count is the container's (MP4), the access units counted (Annex-B), or duration × rate
    /// (Matroska, MPEG-TS): in each case the frames' bytes exactly, so a limit of the Y4M's size without its
    /// header passes and a byte less is refused, with nothing written.
    @Test(arguments: ["mp4", "mkv", "ts", "h264"])
    func theFramesSizeIsToldBeforeDecoding(container: String) throws {
        let scratch = try Scratch("decode-allowance")
        let input = try Self.black("320x240", container)
        let whole = scratch.file("whole.y4m")
        _ = try Self.decode(input, to: whole, OutputAllowance())
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let header = try #require(bytes.firstRange(of: Data("FRAME\n".utf8))).lowerBound
        let frames = Int64(bytes.count - header)
        #expect(frames == 30 * (320 * 240 * 3 / 2 + 6))
        let result = try Self.decode(input, to: scratch.file("fits.y4m"), OutputAllowance(maxOutput: frames))
        #expect(result.frames == 30)
        do {
            _ = try Self.decode(input, to: scratch.file("refused.y4m"), OutputAllowance(maxOutput: frames - 1))
            Issue.record("a decode one byte over its allowance ran")
        } catch let error as MediaError {
            #expect(error.code == .outputTooLarge, "\(error)")
            #expect(error.message.contains("30 frames of 320x240 yuv420p as y4m"), "\(error)")
        }
        #expect(try scratch.listing().sorted() == ["fits.y4m", "whole.y4m"])
    }

    /// 26 kB of black 2160p asks for 373 MB: refused with the code of the limit it passes, the maximum
    /// output first (it never fits), then the quota, then the disk.
    @Test func theCodeNamesTheLimitPassed() throws {
        let scratch = try Scratch("decode-allowance-codes")
        let input = try Self.black("3840x2160", "mp4")
        let cases: [(OutputAllowance, MediaError.Code, String)] = [
            (
                OutputAllowance(maxOutput: 1 << 20, diskHeadroom: 1 << 20, quotaRemaining: 1 << 20), .outputTooLarge,
                "--max-output"
            ),
            (
                OutputAllowance(maxOutput: 16 << 30, diskHeadroom: 1 << 20, quotaRemaining: 1 << 20), .quotaExceeded,
                "--quota"
            ),
            (OutputAllowance(maxOutput: 16 << 30, diskHeadroom: 1 << 20), .insufficientStorage, "--min-free-disk"),
        ]
        for (allowance, code, flag) in cases {
            do {
                _ = try Self.decode(input, to: scratch.file("output.yuv"), allowance, format: "yuv")
                Issue.record("\(allowance) let the decode run")
            } catch let error as MediaError {
                #expect(error.code == code, "\(error)")
                #expect(error.message.contains(flag) && error.message.contains("3840x2160"), "\(error)")
            }
        }
        #expect(try scratch.listing().isEmpty)
    }

    /// AAC: samples × channels × sample size; ADTS states a duration estimated from its bit rate. Five
    /// seconds of silent 7.1 at 96 kHz are 15 kB and 7.7 MB of 16-bit PCM.
    @Test func theSamplesSizeIsToldBeforeDecoding() throws {
        let scratch = try Scratch("decode-allowance-audio")
        let input = try Fixtures.make(
            "silence-7.1.aac",
            ["-f", "lavfi", "-i", "anullsrc=r=96000:cl=7.1", "-t", "5", "-c:a", "aac", "-b:a", "16k"])
        do {
            _ = try Self.decode(
                input, to: scratch.file("output.wav"), OutputAllowance(maxOutput: 4 << 20), format: "wav")
            Issue.record("7.7 MB of PCM were decoded into a 4 MB allowance")
        } catch let error as MediaError {
            #expect(error.code == .outputTooLarge, "\(error)")
            #expect(error.message.contains("8 channel(s) at 96000 Hz as s16le WAV"), "\(error)")
        }
        #expect(try scratch.listing().isEmpty)
        let result = try Self.decode(
            input, to: scratch.file("output.wav"), OutputAllowance(maxOutput: 8 << 20), format: "wav")
        #expect(result.channels == 8)
    }
}
