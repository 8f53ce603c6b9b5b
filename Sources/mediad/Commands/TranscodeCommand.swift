import ArgumentParser
import MediaJobs

struct TranscodeCommand: ParsableCommand {
    private typealias Options = TranscodeJob.Options

    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract:
            "Re-encode a file: H.264, HEVC, AV1 or VP9 video and AAC, Opus or MP3 audio, resized, cut and re-timed.",
        discussion: """
            Reads what remux reads. The first video and the first audio track are decoded, run through \
            libavfilter (upright by the display matrix, --start/--end cut on exact frames, --fps, --width/--height, \
            --pixel-format; resampled and mixed to --sample-rate/--channels) and encoded again with libx264, \
            libx265, SVT-AV1 or libvpx and libav's AAC, libopus or LAME. --json reports per track the codec, \
            profile, frames, achieved bit rate and the speed; --measure ssim|psnr adds a score against the source.

            Examples:
              mediad transcode phone.mov -o web.mp4
              mediad transcode talk.mkv -o talk.mp4 --video-bitrate 2M --gop 60
              mediad transcode talk.mp4 -o clip.webm --start 3.5 --end 7.5 --height 360
              mediad transcode talk.mp4 -o talk.m4a --audio-bitrate 96k --channels 1
            """)

    @Argument(help: "The input file.")
    var input: String

    @OptionGroup var destination: JobOutputArguments<TranscodeJob>

    @Flag(help: .option(Options.description(of: "fragmented"))) var fragmented = false
    @Flag(inversion: .prefixedNo, help: .option(Options.description(of: "global_sidx"))) var globalSidx: Bool?
    @OptionGroup var encoder: EncoderArguments<TranscodeJob>
    @OptionGroup var picture: PictureArguments<TranscodeJob>
    @Option(help: .option(Options.description(of: "rotate"))) var rotate: String?
    @Option(help: .option(Options.description(of: "audio_codec"))) var audioCodec: String?
    @Option(help: .option(Options.description(of: "audio_bitrate"))) var audioBitrate: String?
    @Option(help: .option(Options.description(of: "sample_rate"))) var sampleRate: String?
    @Option(help: .option(Options.description(of: "channels"))) var channels: String?
    @Option(help: .option(Options.description(of: "start"))) var start: String?
    @Option(help: .option(Options.description(of: "end"))) var end: String?
    @Option(help: .option(Options.description(of: "measure"))) var measure: String?
    @Option(parsing: .unconditional, help: .option(Options.description(of: "loudness"))) var loudness: String?
    @Option(parsing: .unconditional, help: .option(Options.description(of: "true_peak"))) var truePeak: String?

    /// The format an output's extension names when --format is not given.
    private static let formatByExtension = [
        "mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "mkv", "webm": "webm", "ts": "ts",
        "m4a": "m4a", "mp3": "mp3", "aac": "adts",
    ]

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values, byExtension: Self.formatByExtension)
        values.add("fragmented", fragmented ? true : nil)
        values.add("global_sidx", globalSidx)
        encoder.add(to: &values)
        picture.add(to: &values)
        values.add([
            "rotate": rotate, "audio_codec": audioCodec, "audio_bitrate": audioBitrate, "sample_rate": sampleRate,
            "channels": channels, "start": start, "end": end, "measure": measure, "loudness": loudness,
            "true_peak": truePeak,
        ])
        try JobRunner.run(TranscodeJob.self, options: values, inputs: ["file": input], to: destination)
    }
}
