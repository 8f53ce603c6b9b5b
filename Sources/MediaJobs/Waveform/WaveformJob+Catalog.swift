import Foundation
import MediaCore

extension WaveformJob: SingleFileJob {
    public static let name = "waveform"
    public typealias Result = WaveformResult

    static let inputPolicy = InputPolicy.audioDecoding
    static let inputSummary = "audio in MP4/M4A, Matroska, MPEG-TS, FLV, ASF, ADTS or WAV"

    /// `waveform.json`, with `waveform.png` beside it: waveform writes both into the directory of the
    /// `output` path it runs with.
    public static func primaryOutput(for options: Options) -> String { peaksFileName }

    /// Writes into the directory of `output`, the primary output's path.
    init(input: String, output: String, options: Options) {
        self.init(input: input, outputDirectory: OutputDirectory.containing(output), options: options)
    }
}

extension WaveformJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        OptionDescription(
            "samples_per_pixel", .integer, default: String(defaultSamplesPerPixel),
            help: "Input samples per min/max pair, 2 to 16777216 (audiowaveform's --zoom)."),
        OptionDescription(
            "pixels_per_second", .integer,
            help: "Pairs per second of audio, 1 to 96000, instead of samples_per_pixel (the rate divided by it)."),
        OptionDescription("bits", .integer, default: "16", help: "The values' range in the peaks: 8 or 16 bits."),
        OptionDescription(
            "split_channels", .boolean, default: "false",
            help: "One waveform per channel instead of the channels averaged into one."),
        OptionDescription(
            "width", .integer, default: "800", help: "The picture's width in pixels, 16 to 16384 (at most 16384x16128)."
        ),
        OptionDescription(
            "height", .integer, default: "250",
            help: "The picture's height in pixels, 16 to 16384 (at most 16384x16128)."),
        OptionDescription(
            "background_color", .color, default: defaultBackground.description, help: "The picture's background."),
        OptionDescription(
            "waveform_color", .color, default: defaultWaveform.description, help: "The colour of the waveform."),
        .damaged,
    ]
}

extension JobKind {
    public static let waveform = WaveformJob.kind
}
