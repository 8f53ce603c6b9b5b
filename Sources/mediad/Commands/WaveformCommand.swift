import ArgumentParser
import MediaJobs

struct WaveformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Draw an audio track's waveform: peaks JSON (audiowaveform's version 2) and a PNG.",
        discussion: """
            Writes waveform.json, the min/max pairs peaks.js and wavesurfer read (version, channels, \
            sample_rate, samples_per_pixel, bits, length, data), and waveform.png, the same pairs drawn over \
            the picture's width. The pairs are computed as audiowaveform computes them from 16-bit samples.

            Examples:
              mediad waveform talk.m4a -o talk/
              mediad waveform talk.m4a -o talk/ --pixels-per-second 20 --bits 8 --split-channels
            """)

    @Argument(help: "A file with an audio track (MP4/M4A, Matroska, MPEG-TS, FLV, ASF, ADTS, WAV).")
    var input: String

    @OptionGroup var destination: DirectoryOutputArguments

    @Option(help: .option(WaveformJob.Options.description(of: "samples_per_pixel")))
    var samplesPerPixel: String?

    @Option(help: .option(WaveformJob.Options.description(of: "pixels_per_second")))
    var pixelsPerSecond: String?

    @Option(help: .option(WaveformJob.Options.description(of: "bits")))
    var bits: String?

    @Flag(help: .option(WaveformJob.Options.description(of: "split_channels")))
    var splitChannels = false

    @Option(help: .option(WaveformJob.Options.description(of: "width")))
    var width: String?

    @Option(help: .option(WaveformJob.Options.description(of: "height")))
    var height: String?

    @Option(help: .option(WaveformJob.Options.description(of: "background_color")))
    var backgroundColor: String?

    @Option(help: .option(WaveformJob.Options.description(of: "waveform_color")))
    var waveformColor: String?

    @Option(help: .option(WaveformJob.Options.description(of: "damaged")))
    var damaged: String?

    func run() throws {
        var values = OptionValues()
        values.add([
            "samples_per_pixel": samplesPerPixel, "pixels_per_second": pixelsPerSecond, "bits": bits,
            "width": width, "height": height, "background_color": backgroundColor, "waveform_color": waveformColor,
            "damaged": damaged,
        ])
        if splitChannels { values.add("split_channels", "true") }
        try destination.run(WaveformJob.self, options: values, input: input)
    }
}
