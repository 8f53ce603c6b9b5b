import ArgumentParser
import MediaJobs

struct ThumbnailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Take pictures of a video at chosen times (JPEG, PNG or WebP), with an optional sprite sheet.",
        discussion: """
            Give one of --times, --every and --count (default: one picture in the middle). Each point is \
            reached by seeking to the keyframe before it, not by decoding the whole file. The pictures are \
            turned upright as the video's rotation says. Writes thumb_0001.jpg, thumb_0002.jpg, … and, with \
            --sprite, sprite.jpg (every picture, ten to a row) and sprite.vtt (WebVTT cues covering the \
            whole video, each pointing at its tile with #xywh=). Points at or past the end get no picture \
            and a warning; when every point is past the end the job fails with empty_selection.

            Examples:
              mediad thumbnails talk.mp4 -o thumbs/ --times 1,5,12.5
              mediad thumbnails talk.mp4 -o thumbs/ --every 10 --width 160 --sprite
              mediad thumbnails talk.mp4 -o thumbs/ --count 5 --mode scene --format webp
            """)

    @Argument(help: "A video file (MP4/MOV, Matroska, MPEG-TS, FLV, ASF, raw H.264/H.265).")
    var input: String

    @OptionGroup var destination: DirectoryOutputArguments

    @Option(help: .option(ThumbnailsJob.Options.description(of: "times")))
    var times: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "every")))
    var every: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "count")))
    var count: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "mode")))
    var mode: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "width")))
    var width: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "height")))
    var height: String?

    @Option(help: .option(ThumbnailsJob.Options.description(of: "format")))
    var format: String?

    @Flag(help: .option(ThumbnailsJob.Options.description(of: "sprite")))
    var sprite = false

    func run() throws {
        var values = OptionValues()
        values.add([
            "times": times, "every": every, "count": count, "mode": mode, "width": width, "height": height,
            "format": format,
        ])
        if sprite { values.add("sprite", "true") }
        try destination.run(ThumbnailsJob.self, options: values, input: input)
    }
}
