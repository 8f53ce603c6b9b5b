import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Cover art and chapters survive a remux wherever the target can hold them (as the ffmpeg CLI keeps
/// them), are moved with a trim, and are named in the warnings where it cannot.
@Suite struct RemuxCoverAndChapterTests {
    /// 2 s of AAC with a PNG (or JPEG) cover, as a podcast or an album track carries it.
    static func coveredM4A(_ image: String) throws -> String {
        let codec = image == "png" ? "png" : "mjpeg"
        let picture = try Fixtures.make(
            "cover.\(image)", ["-f", "lavfi", "-i", "testsrc=size=96x64:duration=1", "-frames:v", "1"])
        return try Fixtures.make(
            "covered-\(image).m4a",
            [
                "-f", "lavfi", "-i", "sine=duration=2", "-i", picture, "-map", "0", "-map", "1", "-c:a", "aac",
                "-c:v", codec, "-disposition:v:0", "attached_pic", "-f", "ipod",
            ])
    }

    /// 4 s of H.264 (a keyframe every second) and AAC with four one-second chapters.
    static func chapteredMP4() throws -> String {
        let text =
            ";FFMETADATA1\n"
            + (0..<4).map {
                "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\($0 * 1000)\nEND=\($0 * 1000 + 1000)\ntitle=Part \($0 + 1)\n"
            }.joined()
        let chapters = try Fixtures.writeSideFile("chapters.txt", text)
        return try Fixtures.make(
            "chaptered.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4", "-f", "lavfi", "-i", "sine=duration=4",
                "-i", chapters, "-map", "0", "-map", "1", "-map_chapters", "2", "-c:v", "libx264", "-preset",
                "ultrafast", "-g", "25", "-c:a", "aac", "-f", "mp4",
            ])
    }

    /// The chapters ffprobe reads: (start seconds, end seconds, title).
    static func chapters(_ path: String) throws -> [(Double, Double, String)] {
        let output = try Command.run("ffprobe", ["-v", "error", "-print_format", "json", "-show_chapters", path])
        let object = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]
        return (object?["chapters"] as? [[String: Any]] ?? []).map { chapter in
            (
                Double(chapter["start_time"] as? String ?? "") ?? -1,
                Double(chapter["end_time"] as? String ?? "") ?? -1,
                (chapter["tags"] as? [String: String])?["title"] ?? ""
            )
        }
    }

    /// The cover's bytes as stored, by ffmpeg's stream copy.
    static func coverHash(_ path: String) throws -> String {
        try Command.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "md5", "-"]).text
    }

    @Test(arguments: ["png", "jpg"], [ContainerFormat.m4a, .mp4, .mkv])
    func keepsCoverArt(_ image: String, _ format: ContainerFormat) throws {
        let scratch = try Scratch("cover")
        let input = try Self.coveredM4A(image)
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        #expect(!result.warnings.contains { $0.contains("cover art") }, "\(result.warnings)")
        let pictures = try Oracle.streams(output).filter {
            ($0["disposition"] as? [String: Int])?["attached_pic"] == 1
        }
        #expect(pictures.count == 1)
        #expect(pictures.first?["width"] as? Int == 96)
        #expect(try Self.coverHash(output) == Self.coverHash(input))
        // Round trip: the cover Matroska keeps as an attachment comes back into M4A unchanged.
        let back = scratch.file("back.m4a")
        _ = try RemuxJob(input: output, output: back, options: try .init(format: .m4a)).run(JobContext())
        #expect(try Self.coverHash(back) == Self.coverHash(input))
    }

    @Test(arguments: [ContainerFormat.mov, .ts, .flv])
    func namesCoverArtItCannotStore(_ format: ContainerFormat) throws {
        let scratch = try Scratch("cover")
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: try Self.coveredM4A("png"), output: output, options: try .init(format: format))
            .run(JobContext())
        #expect(result.warnings.contains { $0.contains("is cover art, which \(format) cannot store") })
    }

    @Test(arguments: [ContainerFormat.mp4, .mov, .m4a, .mkv, .asf])
    func keepsChapters(_ format: ContainerFormat) throws {
        let scratch = try Scratch("chapters")
        let input = try Self.chapteredMP4()
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        #expect(
            result.warnings.allSatisfy { !$0.contains("chapter") && !$0.contains("data track") }, "\(result.warnings)")
        let kept = try Self.chapters(output)
        #expect(kept.map(\.2) == ["Part 1", "Part 2", "Part 3", "Part 4"])
        for (index, chapter) in kept.enumerated() {
            #expect(abs(chapter.0 - Double(index)) < 0.002 && abs(chapter.1 - Double(index + 1)) < 0.03, "\(chapter)")
        }
    }

    @Test func movesChaptersWithATrim() throws {
        let scratch = try Scratch("chapters")
        let output = scratch.file("clip.mkv")
        let result = try RemuxJob(
            input: try Self.chapteredMP4(), output: output, options: try .init(format: .mkv, start: 1.5, end: 3)
        ).run(JobContext())
        #expect(result.cutStart == 1)
        let kept = try Self.chapters(output)
        #expect(kept.map(\.2) == ["Part 2", "Part 3"])
        #expect(kept.first.map { abs($0.0) < 0.002 && abs($0.1 - 1) < 0.002 } == true, "\(kept)")
    }

    @Test func namesChaptersItCannotStore() throws {
        let scratch = try Scratch("chapters")
        let result = try RemuxJob(
            input: try Self.chapteredMP4(), output: scratch.file("out.ts"), options: try .init(format: .ts)
        ).run(JobContext())
        #expect(result.warnings.contains("ts cannot store chapters: the input's 4 were dropped"), "\(result.warnings)")
    }
}
