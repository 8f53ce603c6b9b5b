import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// thumbnails at its limits: a schedule over the 1000 pictures a job takes is refused, never cut short,
/// and points closer together than the video's frames share one picture per frame.
@Suite struct ThumbnailLimitTests {
    /// 1100 s of a 16x16 picture at 1 fps: more seconds than a job takes pictures, in a few kB.
    static func longClip() throws -> String {
        try Fixtures.make(
            "thumbs_1100s.mp4",
            [
                "-f", "lavfi", "-i", "color=c=gray:s=16x16:r=1:d=1100", "-c:v", "libx264", "-preset", "ultrafast",
                "-g", "60", "-f", "mp4",
            ])
    }

    /// A quarter second at 240 fps, 60 frames that all differ (`testsrc2` counts them).
    static func fastClip() throws -> String {
        try Fixtures.make(
            "thumbs_240fps.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=240:duration=0.25", "-c:v", "libx264", "-preset",
                "ultrafast", "-g", "24", "-f", "mp4",
            ])
    }

    @Test func everyOverTheMaximumIsRefusedNotCutShort() throws {
        let scratch = try Scratch("thumbmax")
        let error = #expect(throws: MediaError.self) {
            try ThumbnailsJob(input: try Self.longClip(), outputDirectory: scratch.path, options: .init(every: 1))
                .run(JobContext())
        }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("1100 pictures") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("maximum of 1000") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("every of at least 1.100") == true, "\(error?.message ?? "")")
        #expect(try scratch.listing().isEmpty, "nothing is written")
    }

    @Test func everyUpToTheMaximumIsPlaced() throws {
        let fits = try ThumbnailSchedule(.init(every: 1.1), duration: 1100)
        #expect(fits.points.count == 1000)
        #expect(fits.points.last == 999 * 1.1)
        let over = #expect(throws: MediaError.self) { try ThumbnailSchedule(.init(every: 1.099), duration: 1100) }
        #expect(over?.code == .invalidOption)
        #expect(over?.message.contains("1001 pictures") == true, "\(over?.message ?? "")")
        // The smallest step there is, over the longest video there is: a count too large for an Int is
        // refused all the same.
        let huge = #expect(throws: MediaError.self) { try ThumbnailSchedule(.init(every: 0.001), duration: 1e18) }
        #expect(huge?.code == .invalidOption)
    }

    @Test func pointsCloserThanFramesShareOnePicturePerFrame() throws {
        let scratch = try Scratch("thumbmerge")
        let input = try Self.fastClip()
        let result = try ThumbnailsJob(
            input: input, outputDirectory: scratch.path,
            options: .init(every: 0.001, sprite: true)
        ).run(JobContext())
        // 250 points over 60 frames: one picture per frame, each at the first point on it (JPEG, whose
        // encoder refused a picture with its frame's time again as "Invalid pts").
        #expect(result.thumbnails.count == 60)
        let frameTimes = result.thumbnails.map(\.frameTime)
        #expect(zip(frameTimes, frameTimes.dropFirst()).allSatisfy { $0 < $1 }, "\(frameTimes)")
        for (index, thumbnail) in result.thumbnails.enumerated() {
            #expect(abs(thumbnail.frameTime - Double(index) / 240) < 0.0005)
            #expect(thumbnail.time <= thumbnail.frameTime + 0.0005 && thumbnail.time > thumbnail.frameTime - 1.0 / 240)
        }
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("190 of the 250 points") == true, "\(result.warnings)")
        // One picture for each frame ffprobe finds in the input, at that frame's time.
        let shown = try Command.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", input]
        ).text.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(shown.count == 60)
        for (thumbnail, time) in zip(result.thumbnails, shown.sorted()) {
            #expect(
                abs(thumbnail.frameTime - time) < 0.0005,
                "\(thumbnail.file) at \(thumbnail.frameTime), frame at \(time)")
        }
        #expect(try Parsers.gstreamerProblems(scratch.file(result.thumbnails[59].file), streams: 1) == [])
        // The sheet holds the 60 pictures, ten to a row: not the 25 rows the 250 points would take.
        let sprite = try #require(result.sprite)
        #expect(sprite.columns == 10 && sprite.rows == 6)
        let sheet = try #require(try Oracle.streams(scratch.file("sprite.jpg")).first)
        #expect(sheet["width"] as? Int == 640 && sheet["height"] as? Int == 288)
        let cues = try ThumbnailsJobTests.cues(try String(contentsOfFile: scratch.file("sprite.vtt"), encoding: .utf8))
        #expect(cues.count == 60)
        #expect(abs((cues.last?.end ?? 0) - 0.25) < 0.001)
        #expect(try Parsers.gstreamerProblems(scratch.file("sprite.jpg"), streams: 1) == [])
    }

    @Test func aSpriteSheetLargerThanItsFormatIsRefused() throws {
        let scratch = try Scratch("thumbsheet")
        // Ten 1700-wide pictures a row: 17000 pixels, over the 16383 WebP takes.
        let error = #expect(throws: MediaError.self) {
            try ThumbnailsJob(
                input: try Self.fastClip(), outputDirectory: scratch.path,
                options: .init(count: 10, width: 1700, format: .webp, sprite: true)
            ).run(JobContext())
        }
        #expect(error?.code == .invalidOption)
        #expect(error?.message.contains("sprite sheet") == true, "\(error?.message ?? "")")
    }
}
