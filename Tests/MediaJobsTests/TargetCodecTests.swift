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
        ("flac", "mkv", ContainerFormat.mp4), ("flac", "mkv", .m4a), ("flac", "mkv", .ts), ("flac", "mkv", .mov),
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
}
