import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// probe's loudness against the ffmpeg tool's `ebur128` summary of the same track.
@Suite struct LoudnessTests {
    /// The summary `ffmpeg -af ebur128=peak=true+sample` logs for stream `spec`: I, LRA, sample and true
    /// peak, to 0.1.
    static func ffmpegSummary(_ path: String, stream spec: String) throws -> [String: Double] {
        let output = try Command.run(
            "ffmpeg",
            ["-nostats", "-i", path, "-map", "0:\(spec)", "-af", "ebur128=peak=true+sample", "-f", "null", "-"])
        let summary = output.stderr.components(separatedBy: "Summary:").last ?? ""
        var values: [String: Double] = [:]
        var section = ""
        for line in summary.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasSuffix(":") { section = line }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let number = Double(parts[1]) else { continue }
            switch (section, String(parts[0])) {
            case (_, "I:"): values["integrated"] = number
            case (_, "LRA:"): values["range"] = number
            case ("Sample peak:", "Peak:"): values["sample_peak"] = number
            case ("True peak:", "Peak:"): values["true_peak"] = number
            default: break
            }
        }
        return values
    }

    /// 4 s of stereo: speech-like bursts of two tones at different levels, so range and peaks are not
    /// trivial, in AAC (M4A) and Opus (Matroska) tracks of one file.
    static func program() throws -> String {
        try Fixtures.make(
            "loudness.mkv",
            [
                "-f", "lavfi", "-i",
                "aevalsrc=0.6*sin(2*PI*440*t)*lt(mod(t\\,1)\\,0.6)|0.2*sin(2*PI*1000*t):s=48000:d=4",
                "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100:duration=3",
                "-map", "0", "-map", "1", "-c:a:0", "aac", "-c:a:1", "libopus", "-f", "matroska",
            ])
    }

    @Test func matchesFFmpegsEBUR128PerTrack() throws {
        let path = try Self.program()
        let info = try ProbeJob(input: path, loudness: true).run()
        let audio = info.tracks.filter { $0.kind == "audio" }
        #expect(audio.count == 2)
        for (number, track) in audio.enumerated() {
            let expected = try Self.ffmpegSummary(path, stream: "a:\(number)")
            let loudness = try #require(track.loudness)
            #expect(abs(loudness.integrated - (expected["integrated"] ?? .nan)) <= 0.1, "track \(number) I")
            #expect(abs(loudness.range - (expected["range"] ?? .nan)) <= 0.1, "track \(number) LRA")
            #expect(abs((loudness.truePeak ?? .nan) - (expected["true_peak"] ?? .nan)) <= 0.1, "track \(number) TP")
            #expect(abs((loudness.samplePeak ?? .nan) - (expected["sample_peak"] ?? .nan)) <= 0.1, "track \(number) SP")
        }
        #expect(try ProbeJob(input: path).run().tracks.allSatisfy { $0.loudness == nil })
    }

    @Test func silenceHasNoPeak() throws {
        let path = try Fixtures.make(
            "silence.wav",
            ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "2", "-c:a", "pcm_s16le", "-f", "wav"])
        let loudness = try #require(try ProbeJob(input: path, loudness: true).run().tracks.first?.loudness)
        #expect(loudness.integrated == -70)
        #expect(loudness.truePeak == nil && loudness.samplePeak == nil)
    }
}
