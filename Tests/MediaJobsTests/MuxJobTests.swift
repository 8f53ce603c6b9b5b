import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

@Suite struct MuxJobTests {
    static let h264Formats: [ContainerFormat] = [.mp4, .mov, .mkv, .asf, .flv, .ts]
    /// libav 5.1's FLV and ASF muxers have no H.265 mapping (see the failure tests).
    static let hevcFormats: [ContainerFormat] = [.mp4, .mov, .mkv, .ts]
    static let thirty = FrameRate(numerator: 30, denominator: 1)
    static let twentyFive = FrameRate(numerator: 25, denominator: 1)

    @Test(arguments: h264Formats)
    func muxesH264AndAAC(_ format: ContainerFormat) throws {
        let scratch = try Scratch("mux-h264-\(format)")
        let (audio, video) = (try Fixtures.adts(), try Fixtures.h264AnnexB())
        let (result, output) = try MuxChecks.mux(
            audio: audio, video: video, format: format, fps: Self.thirty, in: scratch)
        #expect(result.outputs == [output])
        #expect(result.videoCodec == "h264")
        #expect(result.format == format.rawValue)
        try MuxChecks.expectFaithful(output, result: result, audio: audio, video: video, fps: Self.thirty)
        if [.mp4, .mov].contains(format) {
            try MuxChecks.expectMoovFirst(output)
            try MuxChecks.expectFramePTSAreConsecutive(output)
        }
        #expect(try scratch.listing() == ["output.\(format.rawValue)"])
    }

    @Test(arguments: hevcFormats)
    func muxesH265AndAAC(_ format: ContainerFormat) throws {
        let scratch = try Scratch("mux-hevc-\(format)")
        let (audio, video) = (try Fixtures.adts(), try Fixtures.hevcAnnexB())
        let (result, output) = try MuxChecks.mux(
            audio: audio, video: video, format: format, fps: Self.twentyFive, in: scratch)
        #expect(result.videoCodec == "hevc")
        try MuxChecks.expectFaithful(output, result: result, audio: audio, video: video, fps: Self.twentyFive)
        if [.mp4, .mov].contains(format) {
            try MuxChecks.expectMoovFirst(output)
            try MuxChecks.expectFramePTSAreConsecutive(output)
        }
    }

    @Test func muxesAudioOnlyToM4A() throws {
        let scratch = try Scratch("mux-m4a")
        let audio = try Fixtures.adts()
        let (result, output) = try MuxChecks.mux(
            audio: audio, video: nil, format: .m4a, fps: Self.twentyFive, in: scratch)
        #expect(result.videoCodec == nil)
        #expect(result.videoFrames == 0)
        try MuxChecks.expectFaithful(output, result: result, audio: audio, video: nil, fps: Self.twentyFive)
        try MuxChecks.expectMoovFirst(output)
        #expect(try Oracle.format(output)["format_name"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")
    }

    @Test func muxesVideoOnlyToMP4() throws {
        let scratch = try Scratch("mux-video-only")
        let video = try Fixtures.h264AnnexB()
        let (result, output) = try MuxChecks.mux(audio: nil, video: video, format: .mp4, fps: Self.thirty, in: scratch)
        #expect(result.audioFrames == 0)
        try MuxChecks.expectFaithful(output, result: result, audio: nil, video: video, fps: Self.thirty)
        try MuxChecks.expectFramePTSAreConsecutive(output)
        let stream = try Oracle.streams(output)[0]
        #expect(stream["avg_frame_rate"] as? String == "30/1")
    }

    @Test func keepsAnNTSCFrameRateExact() throws {
        let scratch = try Scratch("mux-ntsc")
        let video = try Fixtures.h264AnnexB()
        let ntsc = FrameRate(numerator: 30000, denominator: 1001)
        let (result, output) = try MuxChecks.mux(audio: nil, video: video, format: .mkv, fps: ntsc, in: scratch)
        try MuxChecks.expectFaithful(output, result: result, audio: nil, video: video, fps: ntsc)
        #expect(try Oracle.streams(output)[0]["avg_frame_rate"] as? String == "30000/1001")
    }

    /// ADTS and Annex-B extracted from an MP4 by ffmpeg, muxed back, decode to what the MP4 decodes to.
    /// The original's edit list hides the AAC encoder's 1024 priming samples, which raw ADTS cannot
    /// express, so the remuxed audio must equal the original after those samples.
    @Test func roundTripsAnFFmpegMP4() throws {
        let scratch = try Scratch("mux-round-trip")
        let original = try Fixtures.h264AacMP4()
        let (_, output) = try MuxChecks.mux(
            audio: try Fixtures.adts(), video: try Fixtures.h264AnnexB(), format: .mp4, fps: Self.thirty, in: scratch)
        #expect(
            try Oracle.decodedHashes(output, streams: "0:v") == (try Oracle.decodedHashes(original, streams: "0:v")))
        let remuxed = try Oracle.decodeAudio(output)
        let reference = try Oracle.decodeAudio(original)
        let channels = 2
        #expect(Array(remuxed.dropFirst(1024 * channels).prefix(reference.count)) == reference)
        #expect(
            try Oracle.packets(output, stream: "v:0").map { $0["pts"] as? Int }
                == (try Oracle.packets(original, stream: "v:0").map { $0["pts"] as? Int }))
    }

    @Test func reportsProgressUpToOne() throws {
        let scratch = try Scratch("mux-progress")
        let seen = ProgressLog()
        let job = MuxJob(
            audio: try Fixtures.adts(), video: try Fixtures.h264AnnexB(), output: scratch.file("out.ts"),
            options: .init(format: .ts, fps: Self.thirty))
        _ = try job.run(JobContext(reportProgress: { seen.add($0) }))
        let values = seen.values
        #expect(values.count > 10)
        #expect(values.last == 1)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })
    }

    @Test func stopsWhenCancelled() throws {
        let scratch = try Scratch("mux-cancel")
        let job = MuxJob(
            audio: try Fixtures.adts(), video: try Fixtures.h264AnnexB(), output: scratch.file("out.mp4"),
            options: .init(format: .mp4, fps: Self.thirty))
        let calls = ProgressLog()
        let context = JobContext(isCancelled: {
            calls.add(0)
            return calls.values.count > 50
        })
        #expect(throws: MediaError(.cancelled, "the job was cancelled")) { try job.run(context) }
        #expect(try scratch.listing() == [])
    }
}
