import Foundation
import MediaCore
@testable import MediaJobs
import Testing
import TestSupport

/// Packages by stream copy, judged by ffmpeg's own HLS and DASH demuxers and ffprobe: decoding through
/// the manifest gives the source's frames exactly, segments start at keyframes and last at most the target
/// plus one GOP, and the manifests' codec strings are what the parameter sets say.
@Suite struct PackageJobTests {
    /// Packages `input` into `scratch` with string options as the API takes them.
    func package(_ input: String, in scratch: Scratch, _ values: [String: String] = [:]) throws -> PackageResult {
        let options = try PackageJob.Options(parsing: values)
        let primary = scratch.file(PackageJob.primaryOutput(for: options))
        return try PackageJob(input: input, primaryOutput: primary, options: options).run(JobContext())
    }

    /// The source's decoded video frames and audio samples, frame by frame. The audio is read without the
    /// source's edit list: a package, like any fragmented MP4 or MPEG-TS, carries the AAC priming the edit
    /// list hides, and every packet stays as it was.
    func sourceFrames(_ path: String) throws -> (video: [String], audio: [String]) {
        let audio = try Command.run(
            "ffmpeg",
            ["-v", "error", "-ignore_editlist", "1", "-i", path, "-map", "0:a:0", "-f", "framemd5", "-"]
        ).text
        return (try Oracle.frameHashes(path, stream: "v:0"), Self.hashes(audio))
    }

    static func hashes(_ framemd5: String) -> [String] {
        framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test(arguments: [("hls", "fmp4"), ("hls", "ts"), ("dash", "fmp4"), ("cmaf", "fmp4")])
    func decodesToTheSourceFramesExactly(_ format: String, _ segments: String) throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.h264AacMP4()
        let result = try package(
            source, in: scratch, ["format": format, "segment_format": segments, "segment_duration": "1"])
        let manifest = scratch.file(result.manifests[0])
        let expected = try sourceFrames(source)
        #expect(try Oracle.frameHashes(manifest, stream: "v:0") == expected.video)
        #expect(try Oracle.frameHashes(manifest, stream: "a:0") == expected.audio)
        if format == "cmaf" {
            #expect(result.manifests == ["master.m3u8", "manifest.mpd"])
            #expect(try Oracle.frameHashes(scratch.file("manifest.mpd"), stream: "v:0") == expected.video)
        }
        for output in result.outputs { #expect(FileManager.default.fileExists(atPath: output)) }
        #expect(result.warnings.contains { $0.contains("1024-sample encoder delay") }, "\(result.warnings)")
    }

    /// MPEG-TS (Annex-B H.264, ADTS AAC, which fMP4 takes through `aac_adtstoasc`) and Matroska sources.
    @Test(arguments: ["ts", "mkv"])
    func packagesTransportStreamAndMatroskaSources(_ container: String) throws {
        let source =
            container == "ts"
            ? try Fixtures.h264AacTS()
            : try Fixtures.make("h264_aac.mkv", ["-i", try Fixtures.h264AacTS(), "-c", "copy", "-f", "matroska"])
        for (format, segments) in [("cmaf", "fmp4"), ("hls", "ts")] {
            let scratch = try Scratch("package")
            let result = try package(source, in: scratch, ["format": format, "segment_format": segments])
            let master = scratch.file("master.m3u8")
            #expect(try Oracle.frameHashes(master, stream: "v:0") == Oracle.frameHashes(source, stream: "v:0"))
            #expect(try Oracle.frameHashes(master, stream: "a:0") == Oracle.frameHashes(source, stream: "a:0"))
            #expect(result.renditions.map(\.codecs) == ["avc1.64000d", "mp4a.40.2"])
        }
    }

    /// 30 fps with a keyframe every 30 frames: with a 1 s target every segment is one GOP, starts with a
    /// keyframe, and the durations add up to the video's length.
    @Test func cutsAtKeyframesNoLongerThanTargetPlusOneGOP() throws {
        let scratch = try Scratch("package")
        let result = try package(try Fixtures.h264AacMP4(), in: scratch, ["segment_duration": "1"])
        let video = try #require(result.renditions.first { $0.kind == "video" })
        #expect(video.segmentDurations.count == 3)
        for duration in video.segmentDurations { #expect(duration <= 1 + 1 + 0.001) }
        #expect(abs(video.segmentDurations.reduce(0, +) - 3) < 0.05)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.file(video.name)).sorted()
        #expect(names == ["iframes.m3u8", "index.m3u8", "init.mp4", "seg_00001.m4s", "seg_00002.m4s", "seg_00003.m4s"])
        for number in 1...3 {
            let segment =
                try Data(contentsOf: URL(fileURLWithPath: scratch.file("\(video.name)/init.mp4")))
                + Data(contentsOf: URL(fileURLWithPath: scratch.file("\(video.name)/seg_0000\(number).m4s")))
            let joined = scratch.file("joined\(number).mp4")
            try segment.write(to: URL(fileURLWithPath: joined))
            let first = try #require(try Oracle.packets(joined, stream: "v:0").first)
            #expect((first["flags"] as? String)?.hasPrefix("K") == true, "segment \(number) starts with a keyframe")
        }
    }

    /// Each byte range of the I-frame playlist, after the initialization segment, decodes to exactly the
    /// source's keyframe that opens that segment (frames 1, 31 and 61: a keyframe every 30).
    @Test func iFramePlaylistRangesAreTheSourceKeyframes() throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.h264AacMP4()
        _ = try package(source, in: scratch, ["segment_duration": "1"])
        let master = try String(contentsOfFile: scratch.file("master.m3u8"), encoding: .utf8)
        #expect(master.contains(#"#EXT-X-I-FRAME-STREAM-INF:"#) && master.contains(#"URI="240p/iframes.m3u8""#))
        let playlist = try String(contentsOfFile: scratch.file("240p/iframes.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-I-FRAMES-ONLY"))
        let ranges = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }.compactMap {
            Int($0.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")[0])
        }
        let initialization = try Data(contentsOf: URL(fileURLWithPath: scratch.file("240p/init.mp4")))
        let sourceFrames = try Oracle.frameHashes(source, stream: "v:0")
        #expect(ranges.count == 3)
        for (index, length) in ranges.enumerated() {
            let segment = try Data(contentsOf: URL(fileURLWithPath: scratch.file("240p/seg_0000\(index + 1).m4s")))
            let keyframe = try scratch.write("keyframe\(index).mp4", Array(initialization + segment.prefix(length)))
            #expect(try Oracle.frameHashes(keyframe, stream: "v:0") == [sourceFrames[index * 30]])
        }
        let transport = try Scratch("package")
        _ = try package(source, in: transport, ["segment_format": "ts"])
        #expect(!FileManager.default.fileExists(atPath: transport.file("240p/iframes.m3u8")))
    }

    /// The codec strings are the parameter sets' profile and level, as ffprobe reads them; H.265 is `hvc1`.
    @Test func statesCodecStringsFromTheParameterSets() throws {
        let scratch = try Scratch("package")
        let h264 = try package(try Fixtures.h264AacMP4(), in: scratch)
        let stream = try Oracle.streams(try Fixtures.h264AacMP4())[0]
        let level = try #require(stream["level"] as? Int)
        #expect(stream["profile"] as? String == "High")
        #expect(h264.renditions[0].codecs.hasPrefix("avc1.64"))
        #expect(h264.renditions[0].codecs.hasSuffix(String(format: "%02x", level)))
        #expect(h264.renditions[1].codecs == "mp4a.40.2")

        let hevcScratch = try Scratch("package")
        let hevc = try package(try Fixtures.hevcAacMP4(), in: hevcScratch, ["segment_format": "ts"])
        let hevcStream = try Oracle.streams(try Fixtures.hevcAacMP4())[0]
        let hevcLevel = try #require(hevcStream["level"] as? Int)
        #expect(hevc.renditions[0].codecs.hasPrefix("hvc1.1.6.L\(hevcLevel)"))
        #expect(hevc.renditions[1].language == "deu")

        let fmp4Scratch = try Scratch("package")
        let fragmented = try package(try Fixtures.hevcAacMP4(), in: fmp4Scratch)
        #expect(fragmented.renditions[0].codecs == hevc.renditions[0].codecs, "Annex-B SPS and hvcC agree")
        let initSegment = try Data(contentsOf: URL(fileURLWithPath: fmp4Scratch.file("240p/init.mp4")))
        #expect(initSegment.range(of: Data("hvc1".utf8)) != nil)
        #expect(initSegment.range(of: Data("hev1".utf8)) == nil)
    }

    @Test func packagesAudioOnlySources() throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.make(
            "tone.m4a",
            ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:a", "aac", "-f", "mp4"])
        let result = try package(source, in: scratch, ["segment_duration": "1"])
        #expect(result.renditions.map(\.name) == ["audio"])
        let master = try String(contentsOfFile: scratch.file("master.m3u8"), encoding: .utf8)
        #expect(master.contains("CODECS=\"mp4a.40.2\"") && master.contains("\naudio/index.m3u8\n"))
        let audio = try Command.run(
            "ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", source, "-f", "framemd5", "-"]
        ).text
        #expect(try Oracle.frameHashes(scratch.file("master.m3u8"), stream: "a:0") == Self.hashes(audio))
    }

    /// Two audio packets on the same millisecond (a Matroska file cut and joined) failed the package with
    /// libav's "non monotonically increasing dts"; the second now follows the first, in both segment
    /// formats, with a warning, and the audio decodes the same through the playlist.
    @Test(arguments: ["fmp4", "ts"]) func aRepeatedAudioTimeIsMovedForward(_ segmentFormat: String) throws {
        let scratch = try Scratch("package-repeated-time")
        let source = try Fixtures.make(
            "repeated-millisecond.mkv",
            [
                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=3", "-c:a", "aac",
                "-bsf:a", "setts=ts='if(eq(N,50),PREV_INPTS,PTS)'", "-f", "matroska",
            ])
        let result = try package(source, in: scratch, ["segment_duration": "1", "segment_format": segmentFormat])
        #expect(result.warnings.contains { $0.contains("1 packet whose decode time did not come after") })
        #expect(
            try Oracle.decodedHashes(scratch.file("master.m3u8"), streams: "0:a")
                == Oracle.decodedHashes(source, streams: "0:a"))
    }

    @Test func keepsEveryAudioTrackWithItsLanguage() throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.make(
            "two_languages.mp4",
            ["-i", try Fixtures.h264AacMP4(), "-i", try Fixtures.hevcAacMP4()]
                + ["-map", "0:v", "-map", "0:a", "-map", "1:a", "-c", "copy", "-metadata:s:a:0", "language=eng"]
                + ["-metadata:s:a:1", "language=fra", "-shortest", "-f", "mp4"])
        let result = try package(source, in: scratch, ["format": "cmaf"])
        #expect(result.renditions.map(\.name) == ["240p", "audio_1", "audio_2"])
        let master = try String(contentsOfFile: scratch.file("master.m3u8"), encoding: .utf8)
        #expect(master.contains(#"LANGUAGE="eng""#) && master.contains(#"LANGUAGE="fra""#))
        let mpd = try String(contentsOfFile: scratch.file("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains(#"lang="eng""#) && mpd.contains(#"lang="fra""#))
    }

    /// A source with one keyframe in 5 s cannot be cut every second: the package says how long its
    /// segments really are.
    @Test func warnsWhenKeyframesAreFarApart() throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.make(
            "sparse_keyframes.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=5", "-c:v", "libx264", "-preset",
                "ultrafast",
            ]
                + ["-g", "300", "-f", "mp4"])
        let result = try package(source, in: scratch, ["segment_duration": "1"])
        #expect(result.warnings.contains { $0.contains("keyframes are up to 5.000 s apart") })
        #expect(result.renditions[0].segmentDurations.count == 1)
    }

    @Test func refusesCodecsTransportStreamSegmentsCannotCarry() throws {
        let scratch = try Scratch("package")
        let source = try Fixtures.make(
            "vp9.webm",
            ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libvpx-vp9", "-deadline"]
                + ["realtime", "-cpu-used", "8", "-f", "webm"])
        let error = #expect(throws: MediaError.self) { try package(source, in: scratch, ["segment_format": "ts"]) }
        #expect(error?.code == .invalidOption)
        #expect(try Scratch.listingIsOnly([], in: scratch))
        let fragmented = try package(source, in: scratch)
        #expect(fragmented.renditions[0].codecs.hasPrefix("vp09.00."))
    }

    @Test func refusesASourceWithoutAudioOrVideo() throws {
        let scratch = try Scratch("package")
        let subtitles = try scratch.write("cues.srt", Array("1\n00:00:00,000 --> 00:00:01,000\nhello\n".utf8))
        let source = scratch.file("subtitles.mp4")
        try Command.run("ffmpeg", ["-v", "error", "-i", subtitles, "-c:s", "mov_text", "-f", "mp4", source])
        let error = #expect(throws: MediaError.self) { try package(source, in: scratch) }
        #expect(error?.code == .missingStream)
        #expect(try scratch.listing() == ["cues.srt", "subtitles.mp4"])
    }

    @Test(arguments: [
        ["segment_duration": "0.5"], ["segment_duration": "61"], ["segment_format": "ts", "format": "dash"],
        ["segment_format": "ts", "format": "cmaf"], ["renditions": "720p,4k"], ["format": "smooth"],
    ])
    func refusesBadOptions(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try PackageJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }

    @Test func defaultsAreHLSWithSixSecondFMP4Segments() throws {
        let options = try PackageJob.Options(parsing: [:])
        #expect(options == (try PackageJob.Options(format: .hls, segmentFormat: .fmp4, segmentDuration: 6)))
        #expect(PackageJob.primaryOutput(for: options) == "master.m3u8")
        #expect(PackageJob.primaryOutput(for: try .init(parsing: ["format": "dash"])) == "manifest.mpd")
    }
}
