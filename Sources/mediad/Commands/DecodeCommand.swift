import ArgumentParser
import MediaJobs

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode AAC to WAV or raw PCM, or H.264/H.265 to raw frames (Y4M, planar YUV or NV12).",
        discussion: """
            Audio: the first AAC track (ADTS, M4A, MP4), with the encoder priming recorded in an MP4 edit list \
            trimmed. Raw PCM has no header: remember the rate and channels the result reports (--json).

            Video: the first H.264/H.265 track (Annex-B, MP4, Matroska, MPEG-TS), every frame the decoder \
            outputs, in display order. Y4M states the geometry in its header; raw yuv and nv12 do not, so \
            --json reports width, height, pixel_format, frame_rate and frames.

            Examples:
              mediad decode voice.m4a -o voice.wav
              mediad decode voice.aac -o voice.pcm --sample-format f32le
              mediad decode camera.h264 -o camera.y4m
              mediad decode clip.mp4 -o clip.nv12 --json
            """)

    @Argument(help: "AAC (ADTS, M4A, MP4) or H.264/H.265 (Annex-B, MP4, Matroska, MPEG-TS) input.")
    var input: String

    @OptionGroup var destination: JobOutputArguments<DecodeJob>

    @Option(help: .option(DecodeJob.Options.description(of: "sample_format")))
    var sampleFormat: String?

    @Option(help: .option(DecodeJob.Options.description(of: "damaged")))
    var damaged: String?

    /// The format an output's extension names when --format is not given.
    private static let formatByExtension = [
        "wav": "wav", "pcm": "pcm", "raw": "pcm", "y4m": "y4m", "yuv": "yuv", "nv12": "nv12",
    ]

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values, byExtension: Self.formatByExtension)
        values.add(["sample_format": sampleFormat, "damaged": damaged])
        try JobRunner.run(DecodeJob.self, options: values, inputs: ["file": input], to: destination)
    }
}
