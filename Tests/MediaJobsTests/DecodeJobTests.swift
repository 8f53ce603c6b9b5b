import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// An AAC input for the decode tests.
enum AACSource: String, CaseIterable, Sendable, CustomStringConvertible {
    case adtsFixture, m4aFixture, mp4WithVideo
    case exoPlayerADTS, afconvertMP4, faacMP4, fragmentedMP4

    var description: String { rawValue }

    func path() throws -> String {
        switch self {
        case .adtsFixture: return try Fixtures.adts()
        case .m4aFixture: return try DecodeJobTests.m4a()
        case .mp4WithVideo: return try Fixtures.h264AacMP4()
        case .exoPlayerADTS: return RealMedia.directory + "/google_ExoPlayer/sample.adts"
        case .afconvertMP4: return RealMedia.directory + "/mozilla_mp4parse-rust/afconvert-aac-0.5s.mp4"
        case .faacMP4: return RealMedia.directory + "/sannies_mp4parser/count-english-audio.mp4"
        case .fragmentedMP4: return RealMedia.directory + "/shaka-project_shaka-player/audio_en_2c_128k_aac.mp4"
        }
    }
}

@Suite struct DecodeJobTests {
    /// 1.3 s of 44.1 kHz mono AAC in M4A, made by ffmpeg (edit list for the priming, moov at the end).
    static func m4a() throws -> String {
        try Fixtures.make(
            "tone.m4a",
            [
                "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=1.3", "-c:a", "aac", "-b:a", "96k",
                "-f", "ipod",
            ])
    }

    /// What the ffmpeg tool decodes from the first audio track of `path`, as raw `format` samples.
    static func oracleSamples(_ path: String, _ format: SampleFormat) throws -> Data {
        try Command.run(
            "ffmpeg",
            ["-v", "error", "-i", path, "-map", "0:a:0", "-f", format.rawValue, "-c:a", "pcm_" + format.rawValue, "-"]
        ).stdout
    }

    /// `oracleSamples`, cut where the track's edit list ends: ffmpeg 5.1 trims only the start of an MP4
    /// edit list and keeps the last frame's padding, which mediad drops. ffprobe's `duration_ts` of an MP4
    /// audio track in a 1/sample-rate time base is that edited length; ADTS has none, so nothing is cut.
    static func presentedSamples(_ path: String, _ sampleFormat: SampleFormat) throws -> Data {
        let decoded = try oracleSamples(path, sampleFormat)
        let container = try Oracle.format(path)["format_name"] as? String ?? ""
        guard container.hasPrefix("mov"),
            let stream = try Oracle.streams(path).first(where: { $0["codec_type"] as? String == "audio" }),
            let length = stream["duration_ts"] as? Int, let channels = stream["channels"] as? Int,
            let rate = stream["sample_rate"] as? String, stream["time_base"] as? String == "1/\(rate)"
        else { return decoded }
        return decoded.prefix(length * channels * sampleFormat.bytesPerSample)
    }

    static func decode(_ input: String, to output: String, _ values: [String: String] = [:]) throws -> DecodeResult {
        try DecodeJob(input: input, output: output, options: try .init(parsing: values)).run(JobContext())
    }

    @Test(arguments: AACSource.allCases)
    func decodesToWAVLikeFFmpeg(_ source: AACSource) throws {
        let scratch = try Scratch("decode")
        let input = try source.path()
        let output = scratch.file("output.wav")
        let result = try Self.decode(input, to: output)
        let expected = try Self.presentedSamples(input, .s16le)
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["codec_name"] as? String == "pcm_s16le")
        let (samples, channels) = (try #require(result.samples), try #require(result.channels))
        #expect(stream["sample_rate"] as? String == result.sampleRate.map { String($0) })
        #expect(stream["channels"] as? Int == channels)
        #expect(samples * Int64(channels) * 2 == Int64(expected.count))
        #expect(try Self.oracleSamples(output, .s16le) == expected)
        #expect(result.warnings.isEmpty)
        #expect(try scratch.listing() == ["output.wav"])
    }

    @Test(arguments: AACSource.allCases)
    func decodesToRawFloatLikeFFmpeg(_ source: AACSource) throws {
        let scratch = try Scratch("decodef32")
        let input = try source.path()
        let output = scratch.file("output.pcm")
        let result = try Self.decode(input, to: output, ["format": "pcm", "sample_format": "f32le"])
        #expect(result.sampleFormat == .f32le)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == (try Self.presentedSamples(input, .f32le)))
    }

    @Test(arguments: [SampleFormat.s24le, .s16be, .u8])
    func decodesToOtherRawFormatsLikeFFmpeg(_ format: SampleFormat) throws {
        let scratch = try Scratch("decoderaw")
        let input = try Fixtures.adts()
        let output = scratch.file("output.pcm")
        _ = try Self.decode(input, to: output, ["format": "pcm", "sample_format": format.rawValue])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == (try Self.oracleSamples(input, format)))
    }

    /// Encoder priming and the edit list are trimmed: our own m4a of a whole number of frames decodes to
    /// exactly the input length.
    @Test func trimsPrimingOfOwnM4A() throws {
        let scratch = try Scratch("roundtrip")
        let sine = Sine(sampleRate: 48000, channels: 2, count: 20 * 1024, format: .s16le)
        let input = try scratch.write("input.raw", sine.bytes(.s16le))
        let options = try EncodeJob.Options(parsing: ["sample_rate": "48000"])
        _ = try EncodeJob(input: input, output: scratch.file("output.m4a"), options: options).run(JobContext())
        let result = try Self.decode(scratch.file("output.m4a"), to: scratch.file("decoded.wav"))
        #expect(result.samples == Int64(sine.count) && result.sampleRate == 48000 && result.channels == 2)
        #expect(abs(result.duration - Double(sine.count) / 48000) < 1e-9)
    }

    /// A last ADTS frame cut short is skipped with a warning; everything before it decodes as ffmpeg does.
    @Test func truncatedADTSDecodesWithWarning() throws {
        let scratch = try Scratch("truncated")
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.adts())))
        var lastFrame = 0
        var offset = 0
        while offset + 7 <= whole.count {
            let length =
                (Int(whole[offset + 3] & 0x03) << 11) | (Int(whole[offset + 4]) << 3) | Int(whole[offset + 5] >> 5)
            guard length > 7 else { break }
            lastFrame = offset
            offset += length
        }
        #expect(offset == whole.count)
        let input = try scratch.write("input.aac", Array(whole[..<(lastFrame + (whole.count - lastFrame) / 2)]))
        let result = try Self.decode(input, to: scratch.file("output.wav"))
        let expected = try Self.oracleSamples(input, .s16le)
        #expect(try Self.oracleSamples(scratch.file("output.wav"), .s16le) == expected)
        #expect(result.warnings.count == 1 && result.warnings.first?.contains("damaged") == true)
    }

    @Test func reportsProgressAndStopsWhenCancelled() throws {
        let scratch = try Scratch("decodecancel")
        let input = AACSource.fragmentedMP4
        let progress = ProgressLog()
        let job = DecodeJob(input: try input.path(), output: scratch.file("output.wav"), options: .init())
        let cancelling = JobContext(reportProgress: { progress.add($0) }, isCancelled: { progress.count >= 10 })
        let error = #expect(throws: MediaError.self) { try job.run(cancelling) }
        #expect(error?.code == .cancelled)
        #expect(try scratch.listing().isEmpty)

        let finished = ProgressLog()
        _ = try job.run(JobContext(reportProgress: { finished.add($0) }))
        #expect(finished.values.last == 1 && finished.values == finished.values.sorted())
        #expect(try scratch.listing() == ["output.wav"])
    }

    @Test func realTruncatedADTSDecodes() throws {
        let scratch = try Scratch("cbs")
        let input = RealMedia.directory + "/google_ExoPlayer/sample_cbs_truncated.adts"
        let result = try Self.decode(input, to: scratch.file("output.wav"))
        #expect(try Self.oracleSamples(scratch.file("output.wav"), .s16le) == (try Self.oracleSamples(input, .s16le)))
        #expect(try #require(result.samples) > 0)
    }
}
