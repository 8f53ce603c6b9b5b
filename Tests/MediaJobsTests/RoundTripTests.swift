import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// The pipeline of a phone, end to end: what one job writes, the opposite job turns back.
@Suite struct RoundTripTests {
    @Test func encodeThenDecodeGivesBackExactlyTheInputLength() throws {
        let scratch = try Scratch("roundtrip")
        // 30000 samples: not a whole number of 1024-sample AAC frames, so the edit list must cut the end.
        let sine = Sine(sampleRate: 48000, channels: 2, count: 30000, format: .s16le)
        let raw = try scratch.write("in.pcm", sine.bytes(.s16le))
        let m4a = scratch.file("out.m4a")
        _ = try EncodeJob(input: raw, output: m4a, options: .init(sampleRate: 48000, channels: 2)).run(JobContext())
        let wav = scratch.file("back.wav")
        let decoded = try DecodeJob(input: m4a, output: wav, options: .init()).run(JobContext())
        #expect(decoded.samples == 30000)
        #expect(decoded.sampleRate == 48000 && decoded.channels == 2)
        let stream = try #require(try Oracle.streams(wav).first)
        #expect(stream["duration_ts"] as? Int == 30000)
    }

    @Test(arguments: ["h264", "hevc"])
    func demuxThenMuxRestoresEveryFrame(codec: String) throws {
        let scratch = try Scratch("roundtrip")
        let original = codec == "h264" ? try Fixtures.h264AacMP4() : try Fixtures.hevcAacMP4()
        let parts = scratch.file("parts")
        let demuxed = try DemuxJob(input: original, outputDirectory: parts).run(JobContext())
        let video = try #require(demuxed.info.tracks.first { $0.kind == "video" })
        let audio = try #require(demuxed.info.tracks.first { $0.kind == "audio" })
        let fps = try #require(video.frameRate.flatMap(FrameRate.init(parsing:)))

        let rebuilt = scratch.file("rebuilt.mp4")
        _ = try MuxJob(
            audio: parts + "/" + (audio.output ?? ""), video: parts + "/" + (video.output ?? ""), output: rebuilt,
            options: .init(format: .mp4, fps: fps)
        ).run(JobContext())

        #expect(try Oracle.decodedHashes(rebuilt, streams: "0:v") == Oracle.decodedHashes(original, streams: "0:v"))
        let originalTimes = try Oracle.packets(original, stream: "v:0").compactMap { $0["pts"] as? Int }.sorted()
        let rebuiltTimes = try Oracle.packets(rebuilt, stream: "v:0").compactMap { $0["pts"] as? Int }.sorted()
        #expect(originalTimes.count == rebuiltTimes.count)
        let originalBase = try #require(
            try Oracle.streams(original).first { $0["codec_type"] as? String == "video" }?["time_base"] as? String)
        let rebuiltBase = try #require(
            try Oracle.streams(rebuilt).first { $0["codec_type"] as? String == "video" }?["time_base"] as? String)
        #expect(milliseconds(originalTimes, originalBase) == milliseconds(rebuiltTimes, rebuiltBase))

        // ADTS cannot carry the MP4's priming edit list: info.json records it, and the rebuilt audio is the
        // original's with exactly that many priming samples in front.
        let priming = try #require(audio.primingSamples)
        let channels = try #require(audio.channels)
        #expect(try Oracle.audioOffset(of: original, in: rebuilt) == priming * channels)
    }

    /// Presentation times in milliseconds, rounded, so files with different time bases compare.
    private func milliseconds(_ times: [Int], _ timeBase: String) -> [Int] {
        let parts = timeBase.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2 else { return [] }
        return times.map { Int((Double($0) * parts[0] / parts[1] * 1000).rounded()) }
    }
}
