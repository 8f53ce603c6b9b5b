import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// One raw PCM input shape of the encode matrix.
struct PCMCase: Sendable, CustomStringConvertible {
    var format: SampleFormat
    var channels: Int
    var sampleRate: Int

    var description: String { "\(format.rawValue) \(channels)ch \(sampleRate) Hz" }

    /// Every sample format, mono and stereo, at 44.1 and 48 kHz.
    static let matrix: [PCMCase] = SampleFormat.allCases.flatMap { format in
        [(1, 44100), (2, 44100), (1, 48000), (2, 48000)].map {
            PCMCase(format: format, channels: $0.0, sampleRate: $0.1)
        }
    }
}

@Suite struct EncodeJobTests {
    /// 64 AAC frames of input: a whole number of frames, so even libav 5.1 decodes exactly this many.
    static let wholeFrames = 64 * 1024

    static func encode(_ sine: Sine, _ format: SampleFormat, in scratch: Scratch, _ extra: [String: String] = [:])
        throws -> (EncodeResult, String)
    {
        let input = try scratch.write("input.raw", sine.bytes(format))
        var values = [
            "sample_rate": String(sine.sampleRate), "channels": String(sine.channels), "sample_format": format.rawValue,
        ]
        values.merge(extra) { $1 }
        let options = try EncodeJob.Options(parsing: values)
        let output = scratch.file("output." + options.format.rawValue)
        return (try EncodeJob(input: input, output: output, options: options).run(JobContext()), output)
    }

    @Test(arguments: PCMCase.matrix)
    func encodesRawPCMToM4A(_ pcm: PCMCase) throws {
        let scratch = try Scratch("encode")
        let sine = Sine(sampleRate: pcm.sampleRate, channels: pcm.channels, count: Self.wholeFrames, format: pcm.format)
        let (result, output) = try Self.encode(sine, pcm.format, in: scratch, ["bitrate": "96k"])
        #expect(result.samples == Int64(sine.count))
        #expect(result.sampleRate == pcm.sampleRate && result.channels == pcm.channels)
        #expect(result.inputSampleFormat == pcm.format && result.bitrate == 96000 && result.warnings.isEmpty)

        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["codec_name"] as? String == "aac" && stream["profile"] as? String == "LC")
        #expect(
            stream["sample_rate"] as? String == String(pcm.sampleRate) && stream["channels"] as? Int == pcm.channels)
        let boxes = try Oracle.topLevelBoxes(output)
        #expect(try #require(boxes.firstIndex(of: "moov")) < (try #require(boxes.firstIndex(of: "mdat"))))

        let decoded = try Oracle.decodeAudio(output)
        #expect(decoded.count == sine.count * pcm.channels)
        let snr = sine.snr(of: decoded)
        #expect(snr >= 20, "SNR \(snr) dB")
        #expect(try scratch.listing() == ["input.raw", "output.m4a"])
    }

    @Test func encodesSixChannels() throws {
        let scratch = try Scratch("encode6")
        let sine = Sine(sampleRate: 48000, channels: 6, count: Self.wholeFrames, format: .s16le)
        let (result, output) = try Self.encode(sine, .s16le, in: scratch, ["bitrate": "320k"])
        #expect(result.channels == 6)
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["channels"] as? Int == 6 && stream["channel_layout"] as? String == "5.1")
        let decoded = try Oracle.decodeAudio(output)
        #expect(decoded.count == sine.count * 6)
        let snr = sine.snr(of: decoded)
        #expect(snr >= 20, "SNR \(snr) dB")
    }

    @Test(arguments: 1...8)
    func encodesEveryChannelCount(_ channels: Int) throws {
        let scratch = try Scratch("channels")
        let sine = Sine(sampleRate: 48000, channels: channels, count: 8 * 1024, format: .s16le)
        let (result, output) = try Self.encode(sine, .s16le, in: scratch)
        #expect(result.channels == channels)
        #expect(try Oracle.streams(output).first?["channels"] as? Int == channels)
        #expect(try Oracle.decodeAudio(output).count == sine.count * channels)
    }

    /// AAC has no 192 kHz: the input is resampled to the nearest rate it has, with a warning.
    @Test func resamplesRatesAACCannotCode() throws {
        let scratch = try Scratch("resample")
        let sine = Sine(sampleRate: 192_000, channels: 1, count: 64 * 1024, format: .s24le)
        let (result, output) = try Self.encode(sine, .s24le, in: scratch)
        #expect(result.sampleRate == 96000 && result.samples == Int64(sine.count))
        #expect(result.warnings.count == 1 && result.warnings.first?.contains("96000") == true)
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["sample_rate"] as? String == "96000" && stream["duration_ts"] as? Int == sine.count / 2)
    }

    /// The edit list covers exactly the input; libav 5.1's mov demuxer trims the priming from it but not
    /// the padding of the last frame, so its decoder returns the input rounded up to a whole frame.
    @Test func editListMarksPrimingAndExactLength() throws {
        let scratch = try Scratch("editlist")
        let sine = Sine(sampleRate: 44100, channels: 2, count: 30000, format: .s16le)
        let (_, output) = try Self.encode(sine, .s16le, in: scratch)
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["duration_ts"] as? Int == 30000)
        let packets = try Oracle.packets(output, stream: "a:0")
        #expect(packets.first?["pts"] as? Int == -1024)
        let decoded = try Oracle.decodeAudio(output)
        #expect(decoded.count == 30 * 1024 * 2)
        #expect(sine.snr(of: Array(decoded.prefix(sine.samples.count))) >= 20)
    }

    @Test func adtsOutputWarnsAboutPriming() throws {
        let scratch = try Scratch("adts")
        let sine = Sine(sampleRate: 48000, channels: 2, count: Self.wholeFrames, format: .s16le)
        let (result, output) = try Self.encode(sine, .s16le, in: scratch, ["format": "adts"])
        #expect(result.warnings.count == 1 && result.warnings[0].contains("priming"))
        #expect(try Oracle.format(output)["format_name"] as? String == "aac")
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["codec_name"] as? String == "aac" && stream["profile"] as? String == "LC")
        #expect(try Oracle.decodeAudio(output).count == (sine.count + 1024) * 2)
    }

    @Test func mp4OutputProbes() throws {
        let scratch = try Scratch("mp4")
        let sine = Sine(sampleRate: 44100, channels: 1, count: Self.wholeFrames, format: .f32le)
        let (result, output) = try Self.encode(sine, .f32le, in: scratch, ["format": "mp4", "bitrate": "128000"])
        #expect(result.bitrate == 128_000 && result.warnings.isEmpty)
        #expect((try Oracle.format(output)["format_name"] as? String)?.contains("mp4") == true)
        #expect(try Oracle.topLevelBoxes(output).prefix(2) == ["ftyp", "moov"])
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["codec_name"] as? String == "aac" && stream["sample_rate"] as? String == "44100")
        #expect(try Oracle.decodeAudio(output).count == sine.count)
    }

    @Test(arguments: SampleFormat.allCases)
    func wavOutputKeepsSamplesBitExact(_ format: SampleFormat) throws {
        let scratch = try Scratch("wavout")
        let sine = Sine(sampleRate: 48000, channels: 2, count: 10001, format: format)
        let (result, output) = try Self.encode(sine, format, in: scratch, ["format": "wav"])
        let stored = format == .s16be ? "s16le" : format.rawValue
        #expect(result.warnings.isEmpty == (format != .s16be))
        #expect(try Oracle.streams(output).first?["codec_name"] as? String == "pcm_" + stored)
        let samples = try Command.run(
            "ffmpeg", ["-v", "error", "-i", output, "-f", format.rawValue, "-c:a", "pcm_" + format.rawValue, "-"])
        #expect(samples.stdout == Data(sine.bytes(format)))
    }

    @Test func wavInputDescribesItself() throws {
        let scratch = try Scratch("wavin")
        let output = scratch.file("output.m4a")
        let result = try EncodeJob(input: try Fixtures.wav(), output: output, options: .init()).run(JobContext())
        #expect(result.sampleRate == 44100 && result.channels == 2 && result.inputSampleFormat == .s16le)
        #expect(result.samples == 88200 && abs(result.duration - 2) < 1e-9)
        let stream = try #require(try Oracle.streams(output).first)
        #expect(stream["sample_rate"] as? String == "44100" && stream["channels"] as? Int == 2)
        #expect(stream["duration_ts"] as? Int == 88200)
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        #expect(json.contains("\"sample_rate\":44100") && json.contains("\"input_sample_format\":\"s16le\""))
    }

    @Test func agreeingWAVOptionsAreAccepted() throws {
        let scratch = try Scratch("wavagree")
        let options = try EncodeJob.Options(
            parsing: ["sample_rate": "44100", "channels": "2", "sample_format": "s16le", "format": "adts"])
        let result = try EncodeJob(input: try Fixtures.wav(), output: scratch.file("output.aac"), options: options)
            .run(JobContext())
        #expect(result.sampleRate == 44100)
    }

    @Test(arguments: [["sample_rate": "48000"], ["channels": "1"], ["sample_format": "f32le"]])
    func conflictingWAVOptionsAreRejected(_ values: [String: String]) throws {
        let scratch = try Scratch("wavconflict")
        let job = EncodeJob(
            input: try Fixtures.wav(), output: scratch.file("output.m4a"), options: try .init(parsing: values))
        let error = #expect(throws: MediaError.self) { try job.run(JobContext()) }
        #expect(error?.code == .conflictingOptions)
        #expect(error?.message.contains(values.keys.first!) == true)
        #expect(try scratch.listing().isEmpty)
    }

    @Test func reportsProgressAndStopsWhenCancelled() throws {
        let scratch = try Scratch("cancel")
        let sine = Sine(sampleRate: 44100, channels: 2, count: 44100, format: .s16le)
        let input = try scratch.write("input.raw", sine.bytes(.s16le))
        let progress = ProgressLog()
        let context = JobContext(reportProgress: { progress.add($0) }, isCancelled: { progress.count >= 3 })
        let job = EncodeJob(input: input, output: scratch.file("output.m4a"), options: .init())
        let error = #expect(throws: MediaError.self) { try job.run(context) }
        #expect(error?.code == .cancelled)
        #expect(try scratch.listing() == ["input.raw"])

        let finished = ProgressLog()
        _ = try job.run(JobContext(reportProgress: { finished.add($0) }))
        #expect(finished.values.last == 1 && finished.values == finished.values.sorted())
    }
}
