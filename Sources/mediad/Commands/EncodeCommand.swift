import ArgumentParser
import MediaJobs

struct EncodeCommand: ParsableCommand {
    private typealias Options = EncodeJob.Options

    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract:
            "Encode PCM (raw or WAV) to AAC-LC in M4A, MP4 or ADTS, or wrap it in WAV; encode raw camera frames to H.264/H.265.",
        discussion: """
            PCM: a WAV input is recognised by its RIFF header and its own rate, channels and sample format \
            are used; an explicit option that disagrees with the header is an error. Raw PCM takes them from \
            the options, and its length must be a whole number of sample frames. M4A and MP4 record the \
            encoder priming in an edit list so players trim it; ADTS cannot (a warning says so).

            Camera frames: --pixel-format (yuv420p, i.e. I420, or nv12) makes the input raw frames, which \
            need --width, --height and --fps; the length must be a whole number of frames. They are encoded \
            with libx264 or libx265 (the transcode kind's encoder options: --crf or --video-bitrate with \
            --max-bitrate/--buffer-size, --preset, --profile, --level, --gop, --bframes) to an Annex-B stream \
            (.h264/.h265, parameter sets before every keyframe) or to MP4, MOV, MKV or MPEG-TS. With --video \
            and --audio, frames and PCM (described by the PCM options) become one file with AAC beside the video.

            Examples:
              mediad encode voice.wav -o voice.m4a
              mediad encode capture.pcm -o capture.aac \\
                --sample-rate 48000 --channels 1 --sample-format f32le
              mediad encode camera.nv12 -o camera.h264 --pixel-format nv12 \\
                --width 1280 --height 720 --fps 30 --profile baseline \\
                --video-bitrate 2M --max-bitrate 3M --gop 30
              mediad encode --video camera.yuv --audio mic.pcm -o clip.mp4 \\
                --pixel-format yuv420p --width 640 --height 480 --fps 30 \\
                --sample-rate 48000 --channels 1
            """)

    @Argument(help: "Raw PCM or WAV; or raw frames with --pixel-format. Leave out with --video/--audio.")
    var input: String?

    @Option(help: "Raw camera frames to encode beside --audio into one file (needs --pixel-format).")
    var video: String?

    @Option(help: "Raw PCM or WAV to encode to AAC beside --video.")
    var audio: String?

    @OptionGroup var destination: JobOutputArguments<EncodeJob>

    @Option(help: .option(Options.description(of: "sample_rate"))) var sampleRate: String?
    @Option(help: .option(Options.description(of: "channels"))) var channels: String?
    @Option(help: .option(Options.description(of: "sample_format"))) var sampleFormat: String?
    @Option(help: .option(Options.description(of: "bitrate"))) var bitrate: String?
    @OptionGroup var picture: PictureArguments<EncodeJob>
    @OptionGroup var encoder: EncoderArguments<EncodeJob>

    func validate() throws {
        if input == nil && video == nil && audio == nil {
            throw ValidationError("Give the input file, or --video and/or --audio.")
        }
        if input != nil && (video != nil || audio != nil) {
            throw ValidationError("Give the input file alone, or --video and --audio without it.")
        }
    }

    /// The format an output's extension names when --format is not given.
    private static let formatByExtension = [
        "m4a": "m4a", "aac": "adts", "adts": "adts", "mp4": "mp4", "wav": "wav", "mov": "mov",
        "mkv": "mkv", "ts": "ts", "h264": "h264", "264": "h264", "h265": "h265", "265": "h265",
        "hevc": "h265",
    ]

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values, byExtension: Self.formatByExtension)
        values.add([
            "sample_rate": sampleRate, "channels": channels, "sample_format": sampleFormat, "bitrate": bitrate,
        ])
        picture.add(to: &values)
        encoder.add(to: &values)
        try JobRunner.run(
            EncodeJob.self, options: values, inputs: ["file": input, "video": video, "audio": audio], to: destination)
    }
}
