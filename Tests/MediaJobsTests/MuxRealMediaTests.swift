import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Real-world elementary streams (see `RealMedia`) muxed alone, judged against ffmpeg's decode of the input.
@Suite struct MuxRealMediaTests {
    static let videos = ["Eyevinn_mp4ff/4pics.264", "Eyevinn_mp4ff/hevc.265", "sannies_mp4parser/h264-sample.h264"]
    static let audios = [
        "sannies_mp4parser/somesound.aac", "google_ExoPlayer/sample.adts", "google_ExoPlayer/sample_with_id3.adts",
    ]
    static let formats: [ContainerFormat] = [.mp4, .mkv]
    static var available: Bool { FileManager.default.fileExists(atPath: RealMedia.directory + "/MANIFEST.tsv") }

    @Test(.enabled(if: available), arguments: videos, formats)
    func muxesRealVideo(_ name: String, _ format: ContainerFormat) throws {
        let scratch = try Scratch("mux-real-video")
        let input = RealMedia.directory + "/" + name
        let (result, output) = try MuxChecks.mux(
            audio: nil, video: input, format: format, fps: FrameRate(numerator: 25, denominator: 1), in: scratch)
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == (try Oracle.decodedHashes(input, streams: "0:v")))
        #expect(try Oracle.packets(output, stream: "v:0").count == result.videoFrames)
        if format == .mp4 { try MuxChecks.expectFramePTSAreConsecutive(output) }
    }

    @Test(.enabled(if: available), arguments: audios, formats)
    func muxesRealAudio(_ name: String, _ format: ContainerFormat) throws {
        let scratch = try Scratch("mux-real-audio")
        let input = RealMedia.directory + "/" + name
        let (result, output) = try MuxChecks.mux(
            audio: input, video: nil, format: format, fps: FrameRate(numerator: 25, denominator: 1), in: scratch)
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == (try Oracle.decodedHashes(input, streams: "0:a")))
        #expect(result.audioFrames == (try Oracle.packets(input, stream: "a:0")).count)
    }

    @Test(.enabled(if: available))
    func muxesARealPair() throws {
        let scratch = try Scratch("mux-real-pair")
        let audio = RealMedia.directory + "/sannies_mp4parser/somesound.aac"
        let video = RealMedia.directory + "/sannies_mp4parser/h264-sample.h264"
        let (result, output) = try MuxChecks.mux(
            audio: audio, video: video, format: .mp4, fps: FrameRate(numerator: 25, denominator: 1), in: scratch)
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == (try Oracle.decodedHashes(video, streams: "0:v")))
        #expect(try Oracle.decodedHashes(output, streams: "0:a") == (try Oracle.decodedHashes(audio, streams: "0:a")))
        #expect(result.warnings.isEmpty, "a trailing delimiter is dropped silently: \(result.warnings)")
        try MuxChecks.expectMoovFirst(output)
    }

    @Test(.enabled(if: available))
    func refusesTheTruncatedADTSFile() throws {
        let scratch = try Scratch("mux-real-broken")
        let input = RealMedia.directory + "/google_ExoPlayer/sample_cbs_truncated.adts"
        let job = MuxJob(audio: input, video: nil, output: scratch.file("output.mp4"), options: .init(format: .mp4))
        try MuxChecks.expectFailure(.truncatedInput, job, in: scratch, mentioning: "byte 31624")
    }
}
