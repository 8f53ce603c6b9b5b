import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Runs mux jobs and judges their outputs with ffprobe/ffmpeg.
enum MuxChecks {
    static func mux(
        audio: String?, video: String?, format: ContainerFormat, fps: FrameRate, in scratch: Scratch
    ) throws -> (MuxResult, String) {
        let output = scratch.file("output.\(format.rawValue)")
        let job = MuxJob(audio: audio, video: video, output: output, options: .init(format: format, fps: fps))
        return (try job.run(JobContext()), output)
    }

    static func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? Int((value as? String) ?? "") ?? -1 }
    static func double(_ value: Any?) -> Double {
        Double((value as? String) ?? "") ?? (value as? NSNumber)?.doubleValue ?? -1
    }

    /// Checks codecs, packet counts, duration and decoded content of `output` against the inputs.
    static func expectFaithful(
        _ output: String, result: MuxResult, audio: String?, video: String?, fps: FrameRate
    ) throws {
        let streams = try Oracle.streams(output)
        let videoStream = streams.first { $0["codec_type"] as? String == "video" }
        let audioStream = streams.first { $0["codec_type"] as? String == "audio" }
        #expect(streams.count == (audio == nil ? 0 : 1) + (video == nil ? 0 : 1))
        var expectedDuration = 0.0
        var tolerance = 0.05
        if let video {
            let input = try Oracle.streams(video)[0]
            #expect(videoStream?["codec_name"] as? String == input["codec_name"] as? String)
            #expect(int(videoStream?["width"]) == int(input["width"]))
            #expect(int(videoStream?["height"]) == int(input["height"]))
            let frames = try Oracle.packets(video, stream: "v:0").count
            #expect(try Oracle.packets(output, stream: "v:0").count == frames)
            #expect(result.videoFrames == frames)
            #expect(
                try Oracle.decodedHashes(output, streams: "0:v") == (try Oracle.decodedHashes(video, streams: "0:v")))
            expectedDuration = Double(frames) / fps.framesPerSecond
            tolerance = 1 / fps.framesPerSecond + 0.002
        }
        if let audio {
            let input = try Oracle.streams(audio).first { $0["codec_type"] as? String == "audio" }
            #expect(audioStream?["codec_name"] as? String == "aac")
            #expect(int(audioStream?["sample_rate"]) == int(input?["sample_rate"]))
            #expect(int(audioStream?["channels"]) == int(input?["channels"]))
            let frames = try Oracle.packets(audio, stream: "a:0").count
            #expect(try Oracle.packets(output, stream: "a:0").count == frames)
            #expect(result.audioFrames == frames)
            #expect(
                try Oracle.decodedHashes(output, streams: "0:a") == (try Oracle.decodedHashes(audio, streams: "0:a")))
            let sampleRate = Double(int(input?["sample_rate"]))
            expectedDuration = max(expectedDuration, Double(frames * 1024) / sampleRate)
            tolerance = max(tolerance, 1024 / sampleRate + 0.002)
        }
        // ASF and FLV cannot store negative timestamps, so libav shifts every track by the video's decoding
        // delay (as it does for `ffmpeg -c copy`); their stated duration then includes that start time.
        let formatInfo = try Oracle.format(output)
        let name = formatInfo["format_name"] as? String ?? ""
        let shifted = ["asf", "flv"].contains(name)
        var duration = double(formatInfo["duration"]) - (shifted ? double(formatInfo["start_time"]) : 0)
        // ffprobe estimates an MPEG-TS duration from the timestamps near the end of the file, where only the
        // first AAC frame of each PES has one: with several frames to a PES (as the ffmpeg CLI packs them)
        // it comes out short. The packets' own times are exact.
        if name == "mpegts" { duration = try packetSpan(output) }
        #expect(abs(duration - expectedDuration) <= tolerance, "duration \(duration), expected \(expectedDuration)")
        #expect(abs(result.durationSeconds - expectedDuration) < 0.001)
    }

    /// Seconds from the earliest packet start to the latest packet end, over every stream of an MPEG-TS file
    /// (90 kHz timestamps).
    static func packetSpan(_ output: String) throws -> Double {
        let packets = try Oracle.packets(output, stream: "v:0") + Oracle.packets(output, stream: "a:0")
        let starts = packets.map { int($0["pts"]) }
        let ends = packets.map { int($0["pts"]) + int($0["duration"]) }
        return Double((ends.max() ?? 0) - (starts.min() ?? 0)) / 90000
    }

    /// The video pts of an MP4/MOV output in frames, sorted: must be exactly 0, 1, 2, … .
    static func expectFramePTSAreConsecutive(_ output: String) throws {
        let packets = try Oracle.packets(output, stream: "v:0")
        let pts = packets.compactMap { ($0["pts"] as? NSNumber)?.int64Value }.sorted()
        #expect(pts.count == packets.count, "some packets have no pts")
        let step = pts.count > 1 ? pts[1] - pts[0] : 1
        #expect(pts.first == 0)
        #expect(pts.enumerated().allSatisfy { $0.element == Int64($0.offset) * step })
    }

    static func expectMoovFirst(_ output: String) throws {
        let boxes = try Oracle.topLevelBoxes(output)
        let moov = try #require(boxes.firstIndex(of: "moov"))
        let mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "boxes: \(boxes)")
    }

    /// Runs `job` expecting `code`, and checks that it left nothing behind in `scratch`.
    static func expectFailure(
        _ code: MediaError.Code, _ job: MuxJob, in scratch: Scratch, mentioning text: String = ""
    ) throws {
        let before = try scratch.listing()
        do {
            _ = try job.run(JobContext())
            Issue.record("expected \(code)")
        } catch let error as MediaError {
            #expect(error.code == code, "\(error)")
            #expect(!error.message.isEmpty)
            #expect(text.isEmpty || error.message.contains(text), "\(error.message)")
        }
        #expect(try scratch.listing() == before)
    }
}
