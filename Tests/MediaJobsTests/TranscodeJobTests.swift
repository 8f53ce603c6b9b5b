import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Transcodes judged by the ffmpeg CLI and its filters (ssim, ffprobe's frame list) and by GStreamer and
/// MKVToolNix, which share no code with libav's muxers.
@Suite struct TranscodeJobTests {
    /// 4 s of 320x240 30 fps test pattern (nearly lossless H.264) and 48 kHz stereo tone, in MP4.
    static func source() throws -> String {
        try Fixtures.make(
            "transcode_source.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=4", "-ac", "2", "-c:v", "libx264", "-preset",
                "veryfast", "-crf", "10", "-c:a", "aac", "-b:a", "128k", "-shortest", "-f", "mp4",
            ])
    }

    /// Runs a transcode of `input` with string options, as the API and CLI pass them.
    static func transcode(
        _ input: String, _ values: [String: String], in scratch: Scratch, context: JobContext = JobContext()
    ) throws -> (TranscodeResult, String) {
        let options = try TranscodeJob.Options(parsing: values)
        let output = scratch.file(TranscodeJob.primaryOutput(for: options))
        let result = try TranscodeJob.run(
            options, inputs: JobInputFiles(["file": input]), output: output, context: context)
        return (result, output)
    }

    /// ffmpeg's `ssim` filter: the mean SSIM (`All`) of `path`'s first video track against `reference`'s.
    static func ssim(_ path: String, against reference: String) throws -> Double {
        let run = try Command.run(
            "ffmpeg", ["-hide_banner", "-i", path, "-i", reference, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"])
        let line = try #require(run.stderr.split(separator: "\n").last { $0.contains("SSIM") && $0.contains("All:") })
        let value = try #require(line.split(separator: " ").first { $0.hasPrefix("All:") })
        return try #require(Double(value.dropFirst(4)))
    }

    /// ffprobe's frame list of the first video track: (key frame, picture type) in presentation order.
    static func videoFrames(_ path: String) throws -> [(key: Bool, type: String)] {
        let run = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0",
                path,
            ])
        return run.text.split(separator: "\n").map { line in
            let fields = line.split(separator: ",")
            return (fields.first == "1", fields.count > 1 ? String(fields[1]) : "")
        }
    }

    static func stream(_ path: String, _ type: String) throws -> [String: Any] {
        try #require(try Oracle.streams(path).first { $0["codec_type"] as? String == type })
    }

    @Test func defaultsGiveH264AndAACInAFaststartMP4CloseToTheSource() throws {
        let scratch = try Scratch("transcode")
        let source = try Self.source()
        let (result, output) = try Self.transcode(source, [:], in: scratch)
        #expect(try Self.ssim(output, against: source) >= 0.95)
        let video = try Self.stream(output, "video")
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["profile"] as? String == "High")
        #expect(video["nb_frames"] as? String == "120")
        #expect(try Self.stream(output, "audio")["codec_name"] as? String == "aac")
        let duration = try #require(Double(Oracle.format(output)["duration"] as? String ?? ""))
        #expect(abs(duration - 4) <= 1.0 / 30 + 0.03)
        let boxes = try Oracle.topLevelBoxes(output)
        #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!)
        #expect(try Parsers.gstreamerProblems(output, streams: 2) == [])
        #expect(result.tracks.map(\.kind) == ["video", "audio"])
        #expect(result.tracks[0].frames == 120 && result.tracks[0].profile == "High")
        #expect(result.tracks[1].profile == "LC" && result.tracks[1].sampleRate == 48000)
        #expect(result.speed > 0)
    }

    /// Progress follows the output's timestamps from 0 to 1, and audio and video start together.
    @Test func reportsProgressByOutputTimeAndKeepsAudioWithVideo() throws {
        let scratch = try Scratch("transcode")
        let log = ProgressLog()
        let (_, output) = try Self.transcode(
            try Self.source(), ["preset": "ultrafast"], in: scratch, context: JobContext(reportProgress: log.add))
        let values = log.values
        #expect(values.last == 1)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(values.contains { $0 > 0.3 && $0 < 0.7 })
        let starts = try Oracle.streams(output).compactMap { ($0["start_time"] as? String).flatMap(Double.init) }
        #expect(starts.count == 2 && abs(starts[0] - starts[1]) < 1.0 / 30)
    }

    /// An average rate is met within 10 % over 20 s (over a few seconds rate control has not settled).
    @Test func meetsTheAskedVideoBitRate() throws {
        let scratch = try Scratch("transcode")
        let source = try Fixtures.make(
            "transcode_source_20s.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=20", "-c:v", "libx264", "-preset",
                "ultrafast", "-crf", "12", "-f", "mp4",
            ])
        let (result, output) = try Self.transcode(
            source, ["video_bitrate": "300k", "audio_codec": "none", "preset": "veryfast"], in: scratch)
        let measured = try #require(Double(Self.stream(output, "video")["bit_rate"] as? String ?? ""))
        #expect(abs(measured - 300_000) <= 30_000, "ffprobe measured \(measured) bit/s")
        #expect(abs(Double(result.tracks[0].bitrate) - measured) <= measured * 0.02)
    }

    @Test func putsKeyframesExactlyEveryGOP() throws {
        let scratch = try Scratch("transcode")
        for codec in ["h264", "hevc", "av1", "vp9"] {
            let (_, output) = try Self.transcode(
                try Self.source(), ["video_codec": codec, "gop": "12", "preset": "ultrafast", "audio_codec": "none"],
                in: scratch)
            let keys = try Self.videoFrames(output).enumerated().filter(\.element.key).map(\.offset)
            #expect(keys == Array(stride(from: 0, to: 120, by: 12)), "\(codec)")
        }
    }

    @Test func baselineHasNoBFramesAndMainHasTheAskedLevel() throws {
        let scratch = try Scratch("transcode")
        let (baseline, baselineOutput) = try Self.transcode(
            try Self.source(), ["profile": "baseline", "level": "3.1", "format": "mkv"], in: scratch)
        let video = try Self.stream(baselineOutput, "video")
        #expect((video["profile"] as? String)?.hasSuffix("Baseline") == true)
        #expect(video["level"] as? Int == 31)
        #expect(video["has_b_frames"] as? Int == 0)
        #expect(try !Self.videoFrames(baselineOutput).contains { $0.type == "B" })
        #expect(baseline.tracks[0].profile?.hasSuffix("Baseline") == true)
        #expect(try Parsers.mkvmerge(baselineOutput, tracks: 2).problems == [])
        let (_, mainOutput) = try Self.transcode(
            try Self.source(), ["profile": "main", "bframes": "2", "audio_codec": "none"], in: scratch)
        #expect(try Self.stream(mainOutput, "video")["profile"] as? String == "Main")
        #expect(try Self.videoFrames(mainOutput).contains { $0.type == "B" })
    }

    @Test func setsAConstantFrameRateAndAScaledSizeKeepingTheAspect() throws {
        let scratch = try Scratch("transcode")
        let (result, output) = try Self.transcode(
            try Self.source(), ["fps": "25", "width": "160", "preset": "ultrafast"], in: scratch)
        let video = try Self.stream(output, "video")
        #expect(video["r_frame_rate"] as? String == "25/1" && video["avg_frame_rate"] as? String == "25/1")
        #expect(video["width"] as? Int == 160 && video["height"] as? Int == 120)
        #expect(try Self.videoFrames(output).count == 100)
        #expect(result.tracks[0].frameRate == "25")
    }

    /// 1.55 s falls between frames 46 and 47 of a 30 fps source: the cut keeps frames 47 to 104.
    @Test(arguments: [(1.5, 3.5, 60), (1.55, 3.5, 58)])
    func cutsOnExactFrames(start: Double, end: Double, frames: Int) throws {
        let scratch = try Scratch("transcode")
        let (result, output) = try Self.transcode(
            try Self.source(), ["start": String(start), "end": String(end), "preset": "ultrafast"], in: scratch)
        #expect(try Self.videoFrames(output).count == frames)
        #expect(result.tracks[0].frames == frames)
        let audio = try #require(Double(Self.stream(output, "audio")["duration"] as? String ?? ""))
        #expect(abs(audio - (end - start)) < 0.03)
        let firstVideo = try #require(Double(Self.stream(output, "video")["start_time"] as? String ?? ""))
        #expect(firstVideo < 1.0 / 30 + 0.001)
    }

    /// Keyframes every second, and an MPEG-TS timeline that starts at 1.4 s: `start` and `end` count from
    /// the input's start, and the seek to the keyframe before `start` (MP4) loses no frame.
    @Test(arguments: ["mp4", "ts"])
    func cutsExactlyAfterSeekingAndFromAShiftedTimeline(container: String) throws {
        let scratch = try Scratch("transcode")
        let input = container == "ts" ? try Fixtures.h264AacTS() : try Fixtures.h264AacMP4()
        let (result, output) = try Self.transcode(
            input, ["start": "1.2", "end": "2.2", "preset": "ultrafast"], in: scratch)
        #expect(try Self.videoFrames(output).count == 30)
        #expect(result.tracks.map(\.frames).first == 30)
        let audio = try #require(Double(Self.stream(output, "audio")["duration"] as? String ?? ""))
        #expect(abs(audio - 1) < 0.03, "audio lasts \(audio) s")
    }

    @Test func writesEachFormatASecondParserReads() throws {
        let scratch = try Scratch("transcode")
        let cases: [([String: String], String, [String])] = [
            (["format": "webm", "preset": "ultrafast"], "matroska", ["vp9", "opus"]),
            (["format": "mkv", "video_codec": "av1", "preset": "ultrafast"], "matroska", ["av1", "aac"]),
            (["format": "mov", "video_codec": "hevc", "preset": "ultrafast"], "gstreamer", ["hevc", "aac"]),
            (["format": "ts", "preset": "ultrafast", "audio_codec": "mp3"], "gstreamer", ["h264", "mp3"]),
            (["format": "m4a", "channels": "1"], "gstreamer", ["aac"]),
            (["format": "mp3"], "gstreamer", ["mp3"]),
            (["format": "adts", "fragmented": "false"], "gstreamer", ["aac"]),
            (["fragmented": "true", "preset": "ultrafast"], "gstreamer", ["h264", "aac"]),
        ]
        for (values, parser, codecs) in cases {
            let (_, output) = try Self.transcode(try Self.source(), values, in: scratch)
            #expect(try Oracle.streams(output).map { $0["codec_name"] as? String } == codecs, "\(values)")
            let problems =
                parser == "matroska"
                ? try Parsers.mkvmerge(output, tracks: codecs.count).problems
                : try Parsers.gstreamerProblems(output, streams: codecs.count)
            #expect(problems == [], "\(values)")
        }
    }

    @Test func tagsHEVCInMP4AsHvc1() throws {
        let scratch = try Scratch("transcode")
        let (result, output) = try Self.transcode(
            try Self.source(), ["video_codec": "hevc", "profile": "main10", "preset": "ultrafast"], in: scratch)
        let video = try Self.stream(output, "video")
        #expect(video["codec_tag_string"] as? String == "hvc1")
        #expect(video["profile"] as? String == "Main 10" && video["pix_fmt"] as? String == "yuv420p10le")
        #expect(result.tracks[0].profile == "Main 10")
    }

    @Test func turnsRotatedVideoUprightOrKeepsTheRotation() throws {
        let scratch = try Scratch("transcode")
        let rotated = try Fixtures.make(
            "transcode_rotated.mp4",
            [
                "-i", try Self.source(), "-c", "copy", "-metadata:s:v:0", "rotate=90", "-f", "mp4",
            ])
        let (_, upright) = try Self.transcode(rotated, ["preset": "ultrafast"], in: scratch)
        let turned = try Self.stream(upright, "video")
        #expect(turned["width"] as? Int == 240 && turned["height"] as? Int == 320)
        #expect((turned["side_data_list"] as? [[String: Any]]) == nil)
        let keepScratch = try Scratch("transcode")
        let (_, kept) = try Self.transcode(rotated, ["preset": "ultrafast", "rotate": "keep"], in: keepScratch)
        let asCoded = try Self.stream(kept, "video")
        #expect(asCoded["width"] as? Int == 320 && asCoded["height"] as? Int == 240)
        let sideData = try #require(asCoded["side_data_list"] as? [[String: Any]])
        #expect(sideData.contains { ($0["rotation"] as? Int).map(abs) == 90 })
    }

    @Test func refusesVideoFromAnInputWithNone() throws {
        let scratch = try Scratch("transcode")
        let error = try #require(throws: MediaError.self) { try Self.transcode(try Fixtures.wav(), [:], in: scratch) }
        #expect(error.code == .missingStream)
        let (result, output) = try Self.transcode(try Fixtures.wav(), ["format": "m4a"], in: scratch)
        #expect(try Oracle.streams(output).map { $0["codec_name"] as? String } == ["aac"])
        #expect(result.tracks.map(\.kind) == ["audio"])
    }

    @Test func copiesATrackUnchanged() throws {
        let scratch = try Scratch("transcode")
        let source = try Self.source()
        let (result, output) = try Self.transcode(
            source, ["video_codec": "copy", "audio_codec": "opus", "format": "mkv"], in: scratch)
        #expect(try Oracle.decodedHashes(output, streams: "0:v") == Oracle.decodedHashes(source, streams: "0:v"))
        #expect(result.tracks.map(\.copied) == [true, false])
        #expect(try Parsers.mkvmerge(output, tracks: 2).problems == [])
    }

    /// mediad's score goes through libavfilter's `ssim`/`psnr` as ffmpeg's does: the two agree on the mean.
    @Test func measuresQualityAsFFmpegDoes() throws {
        let scratch = try Scratch("transcode")
        let source = try Self.source()
        let (ssim, ssimOutput) = try Self.transcode(
            source, ["measure": "ssim", "crf": "30", "preset": "ultrafast"], in: scratch)
        let quality = try #require(ssim.quality)
        #expect(quality.metric == "ssim" && quality.frames == 120)
        #expect(abs(quality.score - (try Self.ssim(ssimOutput, against: source))) < 0.002)
        let psnrScratch = try Scratch("transcode")
        let (psnr, _) = try Self.transcode(
            source, ["measure": "psnr", "width": "160", "start": "1", "preset": "ultrafast"], in: psnrScratch)
        let decibels = try #require(psnr.quality)
        #expect(decibels.metric == "psnr" && decibels.frames == 90)
        #expect(decibels.score > 25 && decibels.score < 60)
    }

    /// ffmpeg's `ebur128` filter: integrated loudness (LUFS) and true peak (dBFS) of `path`'s audio.
    static func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let run = try Command.run(
            "ffmpeg", ["-hide_banner", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"])
        let summary = try #require(run.stderr.components(separatedBy: "Summary:").last)
        func value(_ label: String) throws -> Double {
            let line = try #require(summary.split(separator: "\n").first { $0.contains(label) })
            return try #require(line.split(separator: " ").compactMap { Double($0) }.first)
        }
        return (try value("I:"), try value("Peak:"))
    }

    @Test func normalisesLoudnessInTwoPasses() throws {
        let scratch = try Scratch("transcode")
        let source = try Self.source()
        let before = try Self.loudness(source)
        let (result, output) = try Self.transcode(source, ["format": "m4a", "loudness": "-16"], in: scratch)
        let after = try Self.loudness(output)
        #expect(abs(after.integrated - -16) <= 1, "ffmpeg measured \(after.integrated) LUFS")
        let report = try #require(result.loudness)
        #expect(abs(report.input.integrated - before.integrated) <= 0.2)
        #expect(abs((report.output?.integrated ?? 0) - after.integrated) <= 0.2)
        #expect(abs(report.gain - (-16 - before.integrated)) <= 0.2)
        #expect(result.warnings.isEmpty)
        let capped = try Scratch("transcode")
        let (limited, limitedOutput) = try Self.transcode(
            source, ["format": "m4a", "loudness": "-5", "true_peak": "-9"], in: capped)
        let peak = try Self.loudness(limitedOutput).truePeak
        #expect(peak <= -9 + 0.5, "ffmpeg measured a true peak of \(peak) dBFS")
        #expect(limited.warnings.contains { $0.hasPrefix("loudness: the input's true peak") })
    }

    @Test func stopsWhenCancelled() throws {
        let scratch = try Scratch("transcode")
        let error = try #require(throws: MediaError.self) {
            try Self.transcode(try Self.source(), [:], in: scratch, context: JobContext(isCancelled: { true }))
        }
        #expect(error.code == .cancelled)
        #expect(try scratch.listing() == [])
    }
}
