import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// A codec a target cannot hold is refused before anything is written, with the formats that can; and
/// each format named there really does hold it, sample for sample.
@Suite struct TargetCodecTests {
    static func audio(_ codec: String, _ container: String) throws -> String {
        try Fixtures.make(
            "tone-\(codec).\(container)",
            [
                "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000:duration=1", "-ac", "2", "-c:a", codec,
                "-f", container == "mkv" ? "matroska" : container,
            ])
    }

    @Test(arguments: [
        ("flac", "mkv", ContainerFormat.m4a), ("flac", "mkv", .ts), ("flac", "mkv", .mov),
        ("libopus", "mkv", .mov), ("pcm_s16be", "mov", .mp4), ("pcm_s16be", "mov", .ts),
    ])
    func refusesAndNamesTheTargetsThatCan(_ codec: String, _ container: String, _ target: ContainerFormat) throws {
        let scratch = try Scratch("target-codec")
        let input = try Self.audio(codec, container)
        let error = #expect(throws: MediaError.self) {
            try RemuxJob(
                input: input, output: scratch.file("out.\(target.fileExtension)"), options: try .init(format: target)
            )
            .run(JobContext())
        }
        #expect(error?.code == .unsupportedCodec)
        let message = try #require(error?.message)
        let named = try #require(message.components(separatedBy: "formats that can: ").last)
        let alternatives = named.split(separator: ", ").compactMap { ContainerFormat(rawValue: String($0)) }
        #expect(!alternatives.isEmpty, "\(message)")
        #expect(try scratch.listing().isEmpty)
        // Opus into MP4 keeps every sample but cannot say how many to drop at the end (Matroska's discard
        // padding), so only the lossless codecs are compared sample for sample.
        let compares = codec != "libopus"
        for alternative in alternatives where alternative != .m4a {
            let output = scratch.file("alt.\(alternative.fileExtension)")
            _ = try RemuxJob(input: input, output: output, options: try .init(format: alternative)).run(JobContext())
            guard compares else { continue }
            #expect(
                try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"),
                "\(codec) in \(alternative)")
        }
    }

    /// FLAC goes into MP4 as Xiph's mapping (`fLaC`, `dfLa`), which libav 5.1 writes only when asked below
    /// normal compliance: every sample kept, and GStreamer's qtdemux and MediaInfo read it.
    @Test func flacGoesIntoMP4SampleForSample() throws {
        let scratch = try Scratch("flac-mp4")
        let input = try Self.audio("flac", "mkv")
        let output = scratch.file("out.mp4")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: .mp4)).run(JobContext())
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"))
        #expect(try Parsers.gstreamerProblems(output, streams: 1).isEmpty)
        let audio = try Parsers.mediainfo(output).first { $0["@type"] as? String == "Audio" }
        #expect(audio?["Format"] as? String == "FLAC")
        #expect(audio?["CodecID"] as? String == "fLaC")
    }

    /// A QuickTime file with half-rate AC-3 (`bsid` 9, 24 kHz): 192 kbit/s AC-3 at 48 kHz from the ffmpeg
    /// CLI, whose frames (all 768 bytes) get `bsid` 9, which halves the rate and changes nothing else.
    static func halfRateAC3(in scratch: Scratch) throws -> String {
        let raw = try Self.audio("ac3", "ac3")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        for frame in stride(from: 0, to: bytes.count - 5, by: 768) {
            #expect(bytes[frame] == 0x0B && bytes[frame + 1] == 0x77, "an AC-3 frame at \(frame)")
            bytes[frame + 5] = 9 << 3 | bytes[frame + 5] & 0x07
        }
        let patched = try scratch.write("half-rate.ac3", bytes)
        let input = scratch.file("half-rate.mov")
        try Command.run("ffmpeg", ["-v", "error", "-f", "ac3", "-i", patched, "-c", "copy", input])
        return input
    }

    /// MP4 holds AC-3 at its full rates only (libav 5.1's muxer found out at the trailer, as an `io_error`
    /// after all the work): refused up front, with the formats that hold it, which keep every sample.
    @Test func halfRateAC3IsRefusedByMP4BeforeAnythingIsWritten() throws {
        let sources = try Scratch("ac3-source")
        let input = try Self.halfRateAC3(in: sources)
        #expect(try Oracle.streams(input).first?["sample_rate"] as? String == "24000")
        let scratch = try Scratch("ac3-target")
        for target in [ContainerFormat.mp4, .m4a] {
            let error = #expect(throws: MediaError.self) {
                try remux(input, to: target, in: scratch)
            }
            #expect(error?.code == .unsupportedCodec)
            #expect(error?.message.contains("ac3 at 24000 Hz") == true, "\(error?.message ?? "")")
            #expect(error?.message.hasSuffix("formats that can: mov, mkv, ts, asf") == true, "\(error?.message ?? "")")
        }
        #expect(try scratch.listing().isEmpty)
        for target in [ContainerFormat.mov, .mkv] {
            let (output, _) = try remux(input, to: target, in: scratch)
            #expect(
                try Oracle.decodedHashes(output, streams: "0:a") == Oracle.decodedHashes(input, streams: "0:a"),
                "\(target)")
        }
    }
}
