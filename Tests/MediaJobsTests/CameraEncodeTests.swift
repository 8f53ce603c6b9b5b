import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Camera frames → H.264/H.265, the server side of VTCompressionSession, judged by the ffmpeg CLI (PSNR,
/// frame lists), by NAL units parsed here, and by GStreamer and MKVToolNix.
@Suite struct CameraEncodeTests {
    /// NV12 and I420 frames → Annex-B H.264 → mediad's own decode to Y4M: as many frames as went in, each
    /// close to its source (PSNR ≥ 35 dB at the default crf).
    @Test(arguments: ["nv12", "yuv420p"]) func framesSurviveEncodeAndDecode(pixelFormat: String) throws {
        let scratch = try Scratch("camera")
        let frames = try CameraFrames.pattern(pixelFormat)
        let (result, stream) = try CameraFrames.encode(
            ["file": frames], CameraFrames.options(pixelFormat, ["format": "h264"]), in: scratch)
        let track = try #require(result.tracks?.first)
        #expect(track.codec == "h264" && track.frames == 60 && track.width == 160 && track.height == 120)
        #expect(track.frameRate == "30" && result.muxer == "h264" && abs(result.duration - 2) < 1e-9)
        #expect(track.bitrate > 0 && result.sampleRate == nil && result.warnings.isEmpty)
        let y4m = scratch.file("decoded.y4m")
        let decoded = try DecodeJob.run(
            try DecodeJob.Options(parsing: ["format": "y4m"]), inputs: JobInputFiles(["file": stream]), output: y4m,
            context: JobContext())
        #expect(decoded.frames == 60)
        #expect(try CameraFrames.frameCount(y4m) == 60)
        let psnr = try CameraFrames.psnr(
            y4m, reference: frames, pixelFormat: pixelFormat, width: 160, height: 120, fps: 30)
        #expect(psnr >= 35, "PSNR \(psnr) dB")
        #expect(try Parsers.gstreamerProblems(stream, streams: 1) == [])
    }

    /// Annex-B as a phone writes it: SPS and PPS (and the VPS of H.265) right before every IDR picture,
    /// so a reader can start at any keyframe; keyframes exactly every `gop` frames.
    @Test(arguments: [false, true]) func annexBRepeatsParameterSetsBeforeEveryIDR(hevc: Bool) throws {
        let scratch = try Scratch("camera")
        let (_, stream) = try CameraFrames.encode(
            ["file": try CameraFrames.pattern("nv12")],
            CameraFrames.options("nv12", ["format": hevc ? "h265" : "h264", "gop": "15"]), in: scratch)
        let types = try CameraFrames.nalTypes(stream, hevc: hevc)
        let isPicture: (Int) -> Bool = { hevc ? $0 < 32 : (1...5).contains($0) }
        let isIDR: (Int) -> Bool = { hevc ? $0 == 19 || $0 == 20 : $0 == 5 }
        let parameterSets = hevc ? [32, 33, 34] : [7, 8]
        var idrPictures = 0
        for (index, type) in types.enumerated() where isIDR(type) && (index == 0 || !isIDR(types[index - 1])) {
            idrPictures += 1
            let before = types[..<index].lastIndex(where: isPicture).map { types[($0 + 1)..<index] } ?? types[..<index]
            #expect(Set(parameterSets).isSubset(of: Set(before)), "NAL units before IDR \(idrPictures): \(before)")
        }
        #expect(idrPictures == 4, "\(types)")
        let keys = try CameraFrames.pictures(stream).enumerated().filter(\.element.key).map(\.offset)
        #expect(keys == [0, 15, 30, 45])
        #expect(try Parsers.gstreamerProblems(stream, streams: 1) == [])
    }

    /// `profile=baseline` gives a stream without B-frames at the level asked; `high` with `bframes` has
    /// them (so the check can fail); hevc `main10` codes 10-bit.
    @Test func profileAndLevelAreAsAsked() throws {
        let scratch = try Scratch("camera")
        let frames = try CameraFrames.pattern("yuv420p")
        let (baseline, plain) = try CameraFrames.encode(
            ["file": frames], CameraFrames.options("yuv420p", ["profile": "baseline", "level": "3"]), in: scratch)
        let stream = try #require(try Oracle.streams(plain).first)
        #expect(stream["profile"] as? String == "Constrained Baseline" && stream["level"] as? Int == 30)
        #expect(baseline.tracks?.first?.profile == "Constrained Baseline")
        #expect(try CameraFrames.pictures(plain).allSatisfy { $0.type != "B" })
        let (_, withB) = try CameraFrames.encode(
            ["file": frames], CameraFrames.options("yuv420p", ["profile": "high", "bframes": "2", "format": "mkv"]),
            in: scratch)
        #expect(try CameraFrames.pictures(withB).contains { $0.type == "B" })
        let (tenBit, main10) = try CameraFrames.encode(
            ["file": frames], CameraFrames.options("yuv420p", ["video_codec": "hevc", "profile": "main10"]),
            in: scratch)
        #expect(tenBit.tracks?.first?.profile == "Main 10")
        #expect(try Oracle.streams(main10).first?["pix_fmt"] as? String == "yuv420p10le")
        for file in [plain, main10] { #expect(try Parsers.gstreamerProblems(file, streams: 1) == []) }
        #expect(try Parsers.mkvmerge(withB, tracks: 1).problems == [])
    }

    /// `video_bitrate` is met within ±10 % over 20 s (x264's ABR, VBV from `max_bitrate`).
    @Test func videoBitrateIsMetOverTwentySeconds() throws {
        let scratch = try Scratch("camera")
        let frames = try CameraFrames.pattern("yuv420p", fps: 25, seconds: 20)
        let (result, output) = try CameraFrames.encode(
            ["file": frames],
            CameraFrames.options(
                "yuv420p", fps: 25, ["video_bitrate": "100k", "max_bitrate": "200k", "format": "ts"]),
            in: scratch)
        let packets = try Oracle.packets(output, stream: "v:0")
        let bytes = packets.compactMap { ($0["size"] as? String).flatMap(Int.init) }.reduce(0, +)
        let achieved = Double(bytes * 8) / 20
        #expect(abs(achieved / 100_000 - 1) <= 0.1, "achieved \(achieved) bit/s")
        let reported = try #require(result.tracks?.first?.bitrate)
        #expect(abs(Double(reported) / achieved - 1) < 0.02, "reported \(reported), measured \(achieved)")
        #expect(packets.count == 500)
        #expect(try Parsers.gstreamerProblems(output, streams: 1) == [])
    }
}
