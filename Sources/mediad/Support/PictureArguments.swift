import ArgumentParser
import MediaJobs

/// The picture's flags, declared once for `encode` and `transcode`: `--pixel-format`, `--width`, `--height`
/// and `--fps`. They describe the raw camera frames for encode and the output for transcode; each flag's
/// help is `Job`'s catalog description of the option, which says which.
struct PictureArguments<Job: MediaJob>: ParsableArguments {
    @Option(help: .option(Job.Options.description(of: "pixel_format"))) var pixelFormat: String?
    @Option(help: .option(Job.Options.description(of: "width"))) var width: String?
    @Option(help: .option(Job.Options.description(of: "height"))) var height: String?
    @Option(help: .option(Job.Options.description(of: "fps"))) var fps: String?

    /// Adds the flags given to `values`, by option name.
    func add(to values: inout OptionValues) {
        values.add(["pixel_format": pixelFormat, "width": width, "height": height, "fps": fps])
    }
}
