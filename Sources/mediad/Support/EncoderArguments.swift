import ArgumentParser
import MediaJobs

/// The video encoder's flags, declared once for the commands of the kinds that encode video with libx264 or
/// libx265 (`encode` for camera frames, `transcode`): `--video-codec`, `--crf`, `--video-bitrate` with
/// `--max-bitrate` and `--buffer-size`, `--preset`, `--profile`, `--level`, `--gop`, `--bframes`.
///
/// Each flag's help is `Job`'s catalog description of the option, so `--help` says what the API and the
/// console say for that kind: the same text where the kinds share the option's description, each kind's own
/// where they differ (transcode's codecs include av1 and vp9).
struct EncoderArguments<Job: MediaJob>: ParsableArguments {
    @Option(help: .option(Job.Options.description(of: "video_codec"))) var videoCodec: String?
    @Option(help: .option(Job.Options.description(of: "crf"))) var crf: String?
    @Option(help: .option(Job.Options.description(of: "video_bitrate"))) var videoBitrate: String?
    @Option(help: .option(Job.Options.description(of: "max_bitrate"))) var maxBitrate: String?
    @Option(help: .option(Job.Options.description(of: "buffer_size"))) var bufferSize: String?
    @Option(help: .option(Job.Options.description(of: "preset"))) var preset: String?
    @Option(help: .option(Job.Options.description(of: "profile"))) var profile: String?
    @Option(help: .option(Job.Options.description(of: "level"))) var level: String?
    @Option(help: .option(Job.Options.description(of: "gop"))) var gop: String?
    @Option(help: .option(Job.Options.description(of: "bframes"))) var bframes: String?

    /// Adds the flags given to `values`, by option name.
    func add(to values: inout OptionValues) {
        values.add([
            "video_codec": videoCodec, "crf": crf, "video_bitrate": videoBitrate, "max_bitrate": maxBitrate,
            "buffer_size": bufferSize, "preset": preset, "profile": profile, "level": level, "gop": gop,
            "bframes": bframes,
        ])
    }
}
