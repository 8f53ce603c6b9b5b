import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Inputs and options a user can get wrong: each fails with its stable code and leaves no output behind.
@Suite struct BadInputTests {
    static func encodeError(_ input: String, _ scratch: Scratch, _ values: [String: String] = [:]) throws
        -> MediaError?
    {
        let job = EncodeJob(input: input, output: scratch.file("output.m4a"), options: try .init(parsing: values))
        return #expect(throws: MediaError.self) { try job.run(JobContext()) }
    }

    static func decodeError(_ input: String, _ scratch: Scratch) -> MediaError? {
        let job = DecodeJob(input: input, output: scratch.file("output.wav"), options: .init(format: .wav))
        return #expect(throws: MediaError.self) { try job.run(JobContext()) }
    }

    /// Bytes from a fixed-seed generator: the same "random" file on every run.
    static func noise(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    @Test func emptyInput() throws {
        let scratch = try Scratch("empty")
        let input = try scratch.write("input", [])
        #expect(try Self.encodeError(input, scratch)?.code == .emptyInput)
        #expect(Self.decodeError(input, scratch)?.code == .emptyInput)
        #expect(try scratch.listing() == ["input"])
    }

    @Test func partialSampleFrame() throws {
        let scratch = try Scratch("partial")
        let input = try scratch.write("input.raw", Self.noise(1001))
        let error = try Self.encodeError(input, scratch, ["channels": "2", "sample_format": "s16le"])
        #expect(error?.code == .partialFrame)
        #expect(error?.message.contains("1001 bytes") == true && error?.message.contains("4-byte") == true)
        let s24 = try Self.encodeError(input, scratch, ["channels": "1", "sample_format": "s24le"])
        #expect(s24?.code == .partialFrame && s24?.message.contains("3-byte") == true)
        #expect(try scratch.listing() == ["input.raw"])
    }

    @Test func containersAreNotRawPCM() throws {
        let scratch = try Scratch("encodecontainer")
        for input in [try Fixtures.h264AacMP4(), try Fixtures.adts()] {
            let error = try Self.encodeError(input, scratch)
            #expect(error?.code == .unsupportedFormat)
        }
        #expect(try scratch.listing().isEmpty)
    }

    /// Anything the sniffer does not recognise is raw PCM to encode, even noise; the format it was read as
    /// is stated in a warning when the options did not give it.
    @Test func unrecognisedBytesAreRawPCM() throws {
        let scratch = try Scratch("noise")
        let input = try scratch.write("input.raw", Self.noise(40_000))
        let result = try EncodeJob(input: input, output: scratch.file("output.m4a"), options: .init()).run(JobContext())
        #expect(result.samples == 10_000 && result.sampleRate == 44100 && result.channels == 2)
        let assumed = try #require(result.warnings.first { $0.hasPrefix("raw PCM") })
        #expect(assumed.contains("sample_rate 44100 Hz") && assumed.contains("channels 2"), "\(assumed)")
        #expect(assumed.contains("sample_format s16le"))

        let described = try EncodeJob(
            input: input, output: scratch.file("described.m4a"),
            options: .init(parsing: ["sample_rate": "48000", "channels": "1"])
        ).run(JobContext())
        let partly = try #require(described.warnings.first { $0.hasPrefix("raw PCM") })
        #expect(!partly.contains("sample_rate") && !partly.contains("channels") && partly.contains("s16le"))

        let full = ["sample_rate": "48000", "channels": "1", "sample_format": "s16le"]
        let stated = try EncodeJob(input: input, output: scratch.file("stated.m4a"), options: .init(parsing: full))
            .run(JobContext())
        #expect(!stated.warnings.contains { $0.hasPrefix("raw PCM") })
    }

    /// An image, an archive or a document is not raw PCM, even when its length fits whole sample frames.
    @Test func foreignFilesAreNotRawPCM() throws {
        let scratch = try Scratch("foreign")
        let jpeg = try scratch.write("photo.raw", [0xFF, 0xD8, 0xFF, 0xE0] + Self.noise(3996))
        let zip = try scratch.write("bundle.raw", [0x50, 0x4B, 0x03, 0x04] + Self.noise(3996))
        for input in [jpeg, zip] {
            let error = try Self.encodeError(input, scratch)
            #expect(error?.code == .unsupportedFormat && error?.message.contains("encode takes raw PCM or WAV") == true)
        }
        #expect(try scratch.listing().sorted() == ["bundle.raw", "photo.raw"])
    }

    /// NaN or infinity in float samples is bad input, reported with the sample it is at.
    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func nonFiniteFloatSamplesAreInvalidInput(_ bad: Float) throws {
        let scratch = try Scratch("nan")
        var samples = (0..<9600).map { Float(sin(Double($0) * 0.01)) * 0.5 }
        samples[2 * 3000 + 1] = bad
        let bytes = samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian) { Array($0) } }
        let input = try scratch.write("capture.raw", bytes)
        let error = try Self.encodeError(
            input, scratch, ["sample_format": "f32le", "channels": "2", "sample_rate": "48000"])
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("sample 3000") == true, "\(error?.message ?? "")")
        #expect(try scratch.listing() == ["capture.raw"])
    }

    @Test func decodeRefusesWhatIsNotAAC() throws {
        let scratch = try Scratch("decodebad")
        let videoOnly = try Fixtures.make(
            "video_only.mp4", ["-i", try Fixtures.h264AacMP4(), "-map", "0:v", "-c", "copy", "-f", "mp4"])
        #expect(Self.decodeError(videoOnly, scratch)?.code == .missingStream)
        #expect(Self.decodeError(try Fixtures.wav(), scratch)?.code == .unsupportedFormat)
        #expect(
            Self.decodeError(try scratch.write("noise.bin", Self.noise(50_000)), scratch)?.code == .unsupportedFormat)
        let amr = RealMedia.directory + "/sannies_mp4parser/MOV00006.3gp"
        let error = Self.decodeError(amr, scratch)
        #expect(error?.code == .unsupportedCodec && error?.message.contains("amr") == true)
        #expect(try scratch.listing() == ["noise.bin"])
    }

    @Test(arguments: [
        ["channels": "9"], ["channels": "0"], ["sample_format": "s12"], ["bitrate": "abc"], ["bitrate": "4k"],
        ["sample_rate": "4000"], ["format": "flac"], ["volume": "3"],
    ])
    func encodeOptionsAreChecked(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try EncodeJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains(values.keys.first!) == true)
    }

    @Test func encodeOptionsAcceptTheirForms() throws {
        let options = try EncodeJob.Options(
            parsing: [
                "sample_rate": "8000", "channels": "8", "sample_format": "f64le", "bitrate": "96k", "format": "wav",
            ])
        #expect(options == EncodeJob.Options(sampleRate: 8000, channels: 8, sampleFormat: .f64le, format: .wav))
        #expect(try EncodeJob.Options(parsing: [:]) == EncodeJob.Options())
        let error = #expect(throws: MediaError.self) { try EncodeJob.Options(channels: 12).validate() }
        #expect(error?.code == .invalidOption)
    }

    @Test(arguments: [["sample_format": "s12"], ["format": "mp3"], ["bitrate": "96k"]])
    func decodeOptionsAreChecked(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try DecodeJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }

    @Test func bigEndianWAVIsAContradiction() throws {
        let error = #expect(throws: MediaError.self) {
            try DecodeJob.Options(parsing: ["format": "wav", "sample_format": "s16be"])
        }
        #expect(error?.code == .conflictingOptions)
        #expect(try DecodeJob.Options(parsing: ["format": "pcm", "sample_format": "s16be"]).sampleFormat == .s16be)
    }

    @Test func optionsRoundTripAsJSON() throws {
        let encode = EncodeJob.Options(
            sampleRate: 48000, channels: 1, sampleFormat: .s24le, bitrate: 128_000, format: .adts)
        let json = String(decoding: try JSONEncoder().encode(encode), as: UTF8.self)
        #expect(json.contains("\"sample_rate\":48000") && json.contains("\"sample_format\":\"s24le\""))
        #expect(try JSONDecoder().decode(EncodeJob.Options.self, from: Data(json.utf8)) == encode)
        let decode = DecodeJob.Options(format: .pcm, sampleFormat: .f32le)
        #expect(try JSONDecoder().decode(DecodeJob.Options.self, from: JSONEncoder().encode(decode)) == decode)
    }
}
