import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// thumbnails against the ffmpeg tool's own decode of the input: each picture is the frame shown at its
/// time (±1 frame; `testsrc2` frames all differ), sprites and their cues cover the whole video, and every
/// picture is read by ffprobe and GStreamer.
@Suite struct ThumbnailsJobTests {
    /// 10 s of 320x240 25 fps H.264 with a keyframe every 25 frames and B-frames, in MP4.
    static func tenSeconds() throws -> String {
        try Fixtures.make(
            "thumbs_10s.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=10", "-c:v", "libx264", "-preset",
                "veryfast", "-bf", "2", "-g", "25", "-sc_threshold", "0", "-f", "mp4",
            ])
    }

    /// The same video in MPEG-TS, where a seek lands on a packet position rather than a keyframe.
    static func tenSecondsTS() throws -> String {
        try Fixtures.make("thumbs_10s.ts", ["-i", try tenSeconds(), "-c", "copy", "-f", "mpegts"])
    }

    /// The same video marked to be shown turned 90° clockwise.
    static func rotated() throws -> String {
        try Fixtures.make(
            "thumbs_rotated.mp4", ["-i", try tenSeconds(), "-c", "copy", "-metadata:s:v:0", "rotate=90", "-f", "mp4"])
    }

    /// Every frame of `path` as packed RGB, decoded by ffmpeg (`size` bytes each).
    static func frames(_ path: String, size: Int) throws -> [Data] {
        let all = try Command.run(
            "ffmpeg",
            ["-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        ).stdout
        return stride(from: 0, to: all.count, by: size).map { all.subdata(in: $0..<min($0 + size, all.count)) }
    }

    /// The mean squared difference of two pictures of the same size.
    static func meanSquaredError(_ a: Data, _ b: Data) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                for index in 0..<left.count {
                    let difference = Int(left[index]) - Int(right[index])
                    sum += difference * difference
                }
            }
        }
        return Double(sum) / Double(a.count)
    }

    static func run(_ input: String, _ values: [String: String], in scratch: Scratch) throws -> ThumbnailsResult {
        try ThumbnailsJob(input: input, outputDirectory: scratch.path, options: try .init(parsing: values))
            .run(JobContext())
    }

    @Test(arguments: ["mp4", "ts"])
    func picturesAreTheFramesAtTheirTimes(_ container: String) throws {
        let scratch = try Scratch("thumbs")
        let input = try container == "ts" ? Self.tenSecondsTS() : Self.tenSeconds()
        // 0.96 s is the frame just before the keyframe at 1 s, and 5 s a keyframe: a seek by decode time
        // lands on the keyframe after the first, which the seeker must step back from.
        let times = [0.0, 0.96, 1.5, 4.02, 5.0, 7.7, 9.9]
        let result = try Self.run(
            input, ["times": times.map { String($0) }.joined(separator: ","), "format": "png"], in: scratch)
        #expect(result.thumbnails.map(\.file) == (1...7).map { "thumb_000\($0).png" })
        #expect(result.width == 320 && result.height == 240)
        let frames = try Self.frames(input, size: 320 * 240 * 3)
        #expect(frames.count == 250)
        for (thumbnail, time) in zip(result.thumbnails, times) {
            let path = scratch.file(thumbnail.file)
            let picture = try Self.frames(path, size: 320 * 240 * 3)[0]
            let errors = frames.map { Self.meanSquaredError(picture, $0) }
            let best = try #require(errors.indices.min { errors[$0] < errors[$1] })
            let expected = Int((time * 25).rounded(.up))
            #expect(abs(best - expected) <= 1, "\(thumbnail.file) at \(time) s shows frame \(best), not \(expected)")
            #expect(errors[best] < 6.5, "PSNR under 40 dB against frame \(best)")
            #expect(abs(thumbnail.frameTime - Double(best) / 25) < 0.001)
            #expect(try Parsers.gstreamerProblems(path, streams: 1) == [])
        }
        // MP4 seeks: each point decodes at most a keyframe interval (25 frames), not the file (250). MPEG-TS
        // reads on to points ahead: every frame at most once.
        #expect(result.framesDecoded <= (container == "ts" ? 250 : 7 * 25))
    }

    @Test func spriteCuesCoverTheVideo() throws {
        let scratch = try Scratch("thumbsprite")
        let result = try Self.run(
            try Self.tenSeconds(), ["every": "0.75", "width": "80", "sprite": "true"], in: scratch)
        #expect(result.thumbnails.count == 14)
        #expect(result.width == 80 && result.height == 60)
        let sprite = try #require(result.sprite)
        #expect(sprite.columns == 10 && sprite.rows == 2)
        let sheet = try #require(try Oracle.streams(scratch.file("sprite.jpg")).first)
        #expect(sheet["width"] as? Int == 800 && sheet["height"] as? Int == 120)
        #expect(try Parsers.gstreamerProblems(scratch.file("sprite.jpg"), streams: 1) == [])
        let vtt = try String(contentsOfFile: scratch.file("sprite.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n\n"))
        let cues = try Self.cues(vtt)
        #expect(cues.count == 14)
        #expect(cues.first?.start == 0)
        #expect(abs((cues.last?.end ?? 0) - 10) < 0.001)
        for (cue, next) in zip(cues, cues.dropFirst()) { #expect(cue.end == next.start) }
        for (index, cue) in cues.enumerated() {
            #expect(cue.target == "sprite.jpg")
            #expect(cue.rect == [(index % 10) * 80, (index / 10) * 60, 80, 60])
            #expect(cue.rect[0] + cue.rect[2] <= 800 && cue.rect[1] + cue.rect[3] <= 120)
        }
        #expect(try scratch.listing().count == 16)
    }

    /// `hh:mm:ss.ttt --> hh:mm:ss.ttt` then `file#xywh=x,y,w,h`, read back by a parser of their own.
    static func cues(_ vtt: String) throws -> [(start: Double, end: Double, target: String, rect: [Int])] {
        func seconds(_ text: Substring) -> Double {
            let parts = text.split(separator: ":")
            return parts.reduce(0) { $0 * 60 + (Double($1) ?? .nan) }
        }
        let blocks = vtt.components(separatedBy: "\n\n").dropFirst().filter { !$0.isEmpty }
        return try blocks.map { block in
            let lines = block.split(separator: "\n")
            let times = lines[0].components(separatedBy: " --> ")
            let link = lines[1].split(separator: "#")
            let rect = try #require(link.last?.split(separator: "=").last).split(separator: ",").compactMap { Int($0) }
            return (seconds(Substring(times[0])), seconds(Substring(times[1])), String(link[0]), rect)
        }
    }

    @Test func rotationAndOneSideKeepTheShape() throws {
        let scratch = try Scratch("thumbrotate")
        let result = try Self.run(try Self.rotated(), ["count": "2", "height": "160", "format": "webp"], in: scratch)
        #expect(result.width == 120 && result.height == 160)
        #expect(result.thumbnails.map(\.time) == [2.5, 7.5])
        let picture = try #require(try Oracle.streams(scratch.file("thumb_0002.webp")).first)
        #expect(picture["width"] as? Int == 120 && picture["height"] as? Int == 160)
        #expect(try Parsers.gstreamerProblems(scratch.file("thumb_0001.webp"), streams: 1) == [])
    }

    @Test func sceneModeChoosesAFrameAfterThePoint() throws {
        let scratch = try Scratch("thumbscene")
        let result = try Self.run(try Self.tenSeconds(), ["times": "3,6", "mode": "scene"], in: scratch)
        for thumbnail in result.thumbnails {
            #expect(thumbnail.frameTime >= thumbnail.time - 0.001 && thumbnail.frameTime < thumbnail.time + 2)
        }
        #expect(try Parsers.gstreamerProblems(scratch.file("thumb_0001.jpg"), streams: 1) == [])
    }

    @Test func pointsPastTheEndAreWarnedOrRefused() throws {
        let scratch = try Scratch("thumbend")
        let result = try Self.run(try Self.tenSeconds(), ["times": "2,12"], in: scratch)
        #expect(result.thumbnails.count == 1)
        #expect(result.warnings.count == 1 && result.warnings[0].contains("12.0"))
        let scratch2 = try Scratch("thumbend2")
        let error = #expect(throws: MediaError.self) {
            try Self.run(try Self.tenSeconds(), ["times": "10,11"], in: scratch2)
        }
        #expect(error?.code == .emptySelection)
        let audio = #expect(throws: MediaError.self) { try Self.run(try Fixtures.adts(), [:], in: scratch2) }
        #expect(audio?.code == .unsupportedFormat)
        let noVideo = #expect(throws: MediaError.self) {
            try Self.run(
                try Fixtures.make("audio_only.mp4", ["-i", try Fixtures.adts(), "-c", "copy", "-f", "mp4"]), [:],
                in: scratch2)
        }
        #expect(noVideo?.code == .missingStream)
    }

    @Test(arguments: [
        ["times": "1", "every": "2"], ["count": "0"], ["count": "1001"], ["every": "0"], ["times": "1,,2"],
        ["times": "-1"], ["width": "15"], ["format": "gif"], ["mode": "best"], ["sprite": "2"], ["size": "1"],
    ])
    func refusesBadOptions(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try ThumbnailsJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }
}
