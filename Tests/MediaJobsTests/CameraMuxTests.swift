import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Camera frames and PCM in one job (capture → encode → mux): a flash in the pictures and a beep in the
/// sound at the same instant of the capture stay within a frame of each other in the file.
@Suite struct CameraMuxTests {
    /// 2 s of black 160x120 frames at 30 fps, white from frame 30 (1 s) on.
    static func flash() throws -> String {
        try Fixtures.make(
            "camera_flash.yuv",
            [
                "-f", "lavfi", "-i",
                "color=c=black:s=160x120:r=30:d=2,drawbox=c=white:t=fill:enable=gte(n\\,30)", "-pix_fmt", "yuv420p",
                "-f", "rawvideo",
            ])
    }

    /// 2 s of 48 kHz mono s16le silence with a 1 kHz tone from 1 s on.
    static func beep() throws -> String {
        try Fixtures.make(
            "camera_beep.pcm",
            [
                "-f", "lavfi", "-i", "aevalsrc=exprs=if(gte(t\\,1)\\,0.8*sin(2*PI*1000*t)\\,0):s=48000:d=2", "-ac", "1",
                "-f", "s16le",
            ])
    }

    static let pcm = ["sample_rate": "48000", "channels": "1", "sample_format": "s16le"]

    @Test func flashAndBeepStayInSync() throws {
        let scratch = try Scratch("camera-mux")
        let (result, output) = try CameraFrames.encode(
            ["video": try Self.flash(), "audio": try Self.beep()],
            CameraFrames.options("yuv420p", Self.pcm.merging(["profile": "baseline"]) { $1 }), in: scratch)
        #expect(result.tracks?.map(\.codec) == ["h264", "aac"] && result.muxer == "mp4")
        #expect(result.sampleRate == 48000 && result.samples == 96000 && result.warnings.isEmpty)
        let flashAt = try Self.firstBrightFrame(output)
        let streams = try Oracle.streams(output)
        let audioStart = Double(streams.last?["start_time"] as? String ?? "") ?? .nan
        let samples = try Oracle.decodeAudio(output)
        let beepIndex = try #require(samples.firstIndex { abs($0) > 0.3 })
        let beepAt = audioStart + Double(beepIndex) / 48000
        #expect(abs(flashAt - 1) < 1e-6, "flash at \(flashAt) s")
        #expect(abs(beepAt - flashAt) < 1.0 / 30, "beep at \(beepAt) s, flash at \(flashAt) s")
        for stream in streams {
            let duration = Double(stream["duration"] as? String ?? "") ?? .nan
            #expect(abs(duration - 2) < 1.0 / 30, "\(stream["codec_name"] ?? "?") lasts \(duration) s")
        }
        #expect(try Parsers.gstreamerProblems(output, streams: 2) == [])
    }

    /// The other containers: Matroska (read by mkvmerge too), QuickTime and MPEG-TS, from NV12.
    @Test(arguments: ["mkv", "mov", "ts"]) func muxesFramesAndPCMInto(format: String) throws {
        let scratch = try Scratch("camera-mux")
        let (result, output) = try CameraFrames.encode(
            ["video": try CameraFrames.pattern("nv12"), "audio": try Self.beep()],
            CameraFrames.options("nv12", Self.pcm.merging(["format": format, "gop": "30"]) { $1 }), in: scratch)
        #expect(result.tracks?.map(\.kind) == ["video", "audio"])
        #expect(try Oracle.streams(output).map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(try CameraFrames.frameCount(output) == 60)
        #expect(try Parsers.gstreamerProblems(output, streams: 2) == [])
        if format == "mkv" { #expect(try Parsers.mkvmerge(output, tracks: 2).problems == []) }
    }

    /// Progress grows to 1 by the time both tracks reached; a cancelled job stops and leaves no output.
    @Test func reportsProgressAndStopsWhenCancelled() throws {
        let scratch = try Scratch("camera-mux")
        let inputs = ["video": try Self.flash(), "audio": try Self.beep()]
        let options = try EncodeJob.Options(parsing: CameraFrames.options("yuv420p", Self.pcm))
        let output = scratch.file("output.mp4")
        let progress = ProgressLog()
        let cancelling = JobContext(reportProgress: { progress.add($0) }, isCancelled: { progress.count >= 20 })
        let error = #expect(throws: MediaError.self) {
            try EncodeJob.run(options, inputs: JobInputFiles(inputs), output: output, context: cancelling)
        }
        #expect(error?.code == .cancelled)
        #expect(try scratch.listing() == [])
        let finished = ProgressLog()
        _ = try EncodeJob.run(
            options, inputs: JobInputFiles(inputs), output: output,
            context: JobContext(reportProgress: { finished.add($0) }))
        #expect(finished.values.last == 1 && finished.values == finished.values.sorted())
        #expect(finished.values.contains { $0 > 0.4 && $0 < 0.6 })
    }

    /// The time of the first frame whose mean luma is bright, as ffprobe reads it through libavfilter.
    static func firstBrightFrame(_ path: String) throws -> Double {
        let rows = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats", "-show_entries",
                "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0",
            ]
        ).text.split(separator: "\n")
        for row in rows {
            let fields = row.split(separator: ",").compactMap { Double($0) }
            if fields.count == 2, fields[1] > 128 { return fields[0] }
        }
        return .nan
    }
}
