import Foundation
import MediaCore

extension ThumbnailsJob: SingleFileJob {
    public static let name = "thumbnails"
    public typealias Result = ThumbnailsResult

    static let inputPolicy = InputPolicy.videoDecoding
    static let inputSummary = "video in MP4/MOV, Matroska, MPEG-TS, FLV, ASF or raw H.264/H.265"

    /// `thumb_0001.<ext>`, the first picture; the others, the sprite and its cues are written beside it.
    public static func primaryOutput(for options: Options) -> String { pictureName(1, options.format) }

    /// Writes into the directory of `output`, the primary output's path.
    init(input: String, output: String, options: Options) {
        self.init(input: input, outputDirectory: OutputDirectory.containing(output), options: options)
    }

    /// `thumb_0001.jpg` for the first picture.
    static func pictureName(_ number: Int, _ format: ImageEncoder.Format) -> String {
        let digits = String(number)
        return "thumb_" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "."
            + format.fileExtension
    }
}

extension ThumbnailsJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        OptionDescription("times", .secondsList, help: "Seconds to take pictures at, e.g. 1,2.5,10."),
        OptionDescription(
            "every", .seconds, help: "A picture every this many seconds, from 0; at most 1000 over the video."),
        OptionDescription(
            "count", .integer, default: "1",
            help: "This many pictures (1 to 1000), at the middles of equal parts of the duration."),
        .choice(
            "mode", of: Mode.self, default: .exact,
            help: "exact: the frame shown at each point; scene: the most representative frame after it."),
        OptionDescription(
            "width", .integer, help: "The pictures' width, 16 to 16384 (webp 16383); alone it keeps the aspect."),
        OptionDescription(
            "height", .integer, help: "The pictures' height, 16 to 16384 (webp 16383); alone it keeps the aspect."),
        .choice("format", of: ImageEncoder.Format.self, default: .jpeg, help: "The pictures' format."),
        OptionDescription(
            "sprite", .boolean, default: "false",
            help: "Also a tiled sheet of every picture (sprite.<ext>) and WebVTT cues into it (sprite.vtt)."),
    ]
}

extension JobKind {
    public static let thumbnails = ThumbnailsJob.kind
}

extension ThumbnailsJob {
    /// Refuses at upload an `every` that places more pictures than a job takes over the video's duration
    /// as the probe gives it, with the job's own `invalid_option` (`ThumbnailSchedule.pointCount`); the
    /// job makes the same check when it opens the input, which is all an input by URL gets.
    public static func admission(for options: Options, memoryLimit: Int64?) -> (@Sendable (MediaInfo) throws -> Void)? {
        guard let every = options.every else { return nil }
        return { info in
            guard let duration = ThumbnailSchedule.duration(of: info), duration > 0 else { return }
            _ = try ThumbnailSchedule.pointCount(every: every, duration: duration)
        }
    }
}
