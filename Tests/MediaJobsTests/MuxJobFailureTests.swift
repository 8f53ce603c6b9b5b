import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

@Suite struct MuxJobFailureTests {
    private func job(audio: String?, video: String?, _ scratch: Scratch, format: ContainerFormat = .mp4) -> MuxJob {
        MuxJob(
            audio: audio, video: video, output: scratch.file("output.\(format.rawValue)"),
            options: .init(format: format))
    }

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Rebuilds an Annex-B stream without the NAL units whose type `drop` selects.
    private func annexB(_ bytes: [UInt8], dropping drop: (UInt8) -> Bool) -> [UInt8] {
        let units = bytes.withUnsafeBufferPointer { AnnexB.nalUnits(in: $0) }
        return units.filter { !drop(bytes[$0.lowerBound]) }.flatMap { [0, 0, 0, 1] + bytes[$0] }
    }

    @Test func refusesAWAVAsTheAudioPart() throws {
        let scratch = try Scratch("mux-wav")
        try MuxChecks.expectFailure(
            .unsupportedFormat, job(audio: try Fixtures.wav(), video: nil, scratch), in: scratch, mentioning: "WAV")
    }

    @Test func needsParameterSetsBeforeTheFirstSlice() throws {
        let scratch = try Scratch("mux-no-sps")
        let h264 = try scratch.write(
            "nosps.h264", annexB(try bytes(try Fixtures.h264AnnexB())) { [7, 8].contains($0 & 0x1F) })
        try MuxChecks.expectFailure(
            .missingParameterSets, job(audio: nil, video: h264, scratch), in: scratch,
            mentioning: "picture parameter set")
        let hevc = try scratch.write(
            "novps.hevc", annexB(try bytes(try Fixtures.hevcAnnexB())) { ($0 >> 1) & 0x3F == 32 })
        try MuxChecks.expectFailure(
            .missingParameterSets, job(audio: nil, video: hevc, scratch), in: scratch, mentioning: "video parameter set"
        )
    }

    @Test func refusesUndecodableHeadersAndStreamsWithoutPictures() throws {
        let scratch = try Scratch("mux-bad-headers")
        let original = try bytes(try Fixtures.h264AnnexB())
        let units = original.withUnsafeBufferPointer { AnnexB.nalUnits(in: $0) }
        let cutSPS = units.flatMap { unit -> [UInt8] in
            let nal = original[unit]
            return [0, 0, 0, 1] + (nal.first! & 0x1F == 7 ? Array(nal.prefix(3)) : Array(nal))
        }
        let badSPS = try scratch.write("badsps.h264", cutSPS)
        try MuxChecks.expectFailure(
            .invalidInput, job(audio: nil, video: badSPS, scratch), in: scratch, mentioning: "H.264")
        let parameterSetsOnly = try scratch.write("ps.h264", annexB(original) { ![7, 8].contains($0 & 0x1F) })
        try MuxChecks.expectFailure(.missingStream, job(audio: nil, video: parameterSetsOnly, scratch), in: scratch)
    }

    @Test func refusesDamagedADTSAndLeavesNoPartialOutput() throws {
        let scratch = try Scratch("mux-bad-adts")
        let frames = try ADTSFrames.split(try bytes(try Fixtures.adts()))
        let middle = frames.count / 2
        let garbage = try scratch.write(
            "garbage.aac",
            frames[..<middle].flatMap { $0 } + [0xDE, 0xAD, 0xBE, 0xEF] + frames[middle...].flatMap { $0 })
        try MuxChecks.expectFailure(
            .invalidInput, job(audio: garbage, video: try Fixtures.h264AnnexB(), scratch), in: scratch,
            mentioning: "at byte \(frames[..<middle].reduce(0) { $0 + $1.count })")
        let truncated = try scratch.write("cut.aac", Array(frames.flatMap { $0 }.dropLast(100)))
        try MuxChecks.expectFailure(
            .truncatedInput, job(audio: truncated, video: try Fixtures.h264AnnexB(), scratch), in: scratch)
    }

    @Test func refusesEmptyAndUnrecognisedInputs() throws {
        let scratch = try Scratch("mux-junk")
        let empty = try scratch.write("empty.bin", [])
        try MuxChecks.expectFailure(.emptyInput, job(audio: empty, video: nil, scratch), in: scratch)
        try MuxChecks.expectFailure(.emptyInput, job(audio: nil, video: empty, scratch), in: scratch)
        var generator = SeededGenerator(seed: 7)
        let random = try scratch.write(
            "random.bin", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try MuxChecks.expectFailure(.unsupportedFormat, job(audio: random, video: nil, scratch), in: scratch)
        try MuxChecks.expectFailure(.unsupportedFormat, job(audio: nil, video: random, scratch), in: scratch)
        try MuxChecks.expectFailure(
            .unsupportedFormat, job(audio: try Fixtures.h264AnnexB(), video: nil, scratch), in: scratch)
    }

    @Test func refusesBadOptions() throws {
        let scratch = try Scratch("mux-options")
        #expect(throws: MediaError.self) { try MuxJob.Options(parsing: ["format": "mp4", "bitrate": "1"]) }
        for values in [["fps": "0"], ["fps": "fast"], ["fps": "1000"], ["format": "avi"], ["speed": "2"]] {
            do {
                _ = try MuxJob.Options(parsing: values)
                Issue.record("accepted \(values)")
            } catch let error as MediaError {
                #expect(error.code == .invalidOption)
            }
        }
        try MuxChecks.expectFailure(.invalidOption, job(audio: nil, video: nil, scratch), in: scratch)
        try MuxChecks.expectFailure(
            .invalidOption, job(audio: try Fixtures.adts(), video: try Fixtures.h264AnnexB(), scratch, format: .m4a),
            in: scratch)
    }

    @Test func parsesOptions() throws {
        #expect(
            try MuxJob.Options(parsing: [:])
                == MuxJob.Options(format: .mp4, fps: FrameRate(numerator: 25, denominator: 1)))
        let options = try MuxJob.Options(parsing: ["format": "mkv", "fps": "29.97"])
        #expect(options == MuxJob.Options(format: .mkv, fps: FrameRate(numerator: 30000, denominator: 1001)))
    }

    @Test(arguments: [ContainerFormat.flv, .asf])
    func refusesH265WhereTheContainerCannotCarryIt(_ format: ContainerFormat) throws {
        let scratch = try Scratch("mux-hevc-\(format)")
        let job = job(audio: try Fixtures.adts(), video: try Fixtures.hevcAnnexB(), scratch, format: format)
        try MuxChecks.expectFailure(.unsupportedCodec, job, in: scratch, mentioning: "hevc")
    }
}

/// A small deterministic random number generator (SplitMix64) for reproducible junk input.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Splits ADTS bytes into frames by their frame_length fields.
enum ADTSFrames {
    static func split(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var offset = 0
        while offset + 7 <= bytes.count {
            let length =
                (Int(bytes[offset + 3] & 3) << 11) | (Int(bytes[offset + 4]) << 3) | Int(bytes[offset + 5] >> 5)
            try #require(length > 7 && offset + length <= bytes.count)
            frames.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        return frames
    }
}
