import ArgumentParser
import Foundation
import MediaCore
import MediaJobs

struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Package a file for streaming as HLS and/or DASH, by stream copy or as an ABR ladder.",
        discussion: """
            Without --renditions no frame is decoded or re-encoded: the video track and every audio track are \
            cut into segments at the video's keyframes (never longer than --segment-duration plus one GOP) and \
            described by an HLS master playlist (master.m3u8) with a media playlist per track, a DASH MPD \
            (manifest.mpd), or both over one set of fMP4 segments (--format cmaf). Each track has a folder of \
            its own (720p/, audio/). The segments' real durations are reported with --json.

            With --renditions the video is decoded once and encoded in H.264 as each rendition asked \
            (2160p 16 Mbit/s, 1440p 10 Mbit/s, 1080p 6 Mbit/s, 720p 3 Mbit/s: High; 480p 1.5 Mbit/s, 360p \
            800 kbit/s, 240p 400 kbit/s: Main), with keyframes at every multiple of --segment-duration in \
            all of them; renditions taller than the source are skipped with a warning. AAC audio is copied, \
            other audio encoded once to AAC.

            Examples:
              mediad package talk.mp4 -o talk-hls/
              mediad package talk.mkv -o talk-dash/ --format dash --segment-duration 4
              mediad package talk.mp4 -o talk-ts/ --segment-format ts --json
              mediad package talk.mov -o abr/ --renditions 1080p,720p,360p
            """)

    @Argument(help: "The input file.")
    var input: String

    @Option(name: .shortAndLong, help: "The directory to write the package into (created if missing).")
    var output: String

    @Option(help: .option(PackageJob.Options.description(of: "format")))
    var format: String?

    @Option(help: .option(PackageJob.Options.description(of: "segment_format")))
    var segmentFormat: String?

    @Option(help: .option(PackageJob.Options.description(of: "segment_duration")))
    var segmentDuration: String?

    @Option(help: .option(PackageJob.Options.description(of: "renditions")))
    var renditions: String?

    @Option(help: .option(PackageJob.Options.description(of: "preset")))
    var preset: String?

    @Option(help: .option(PackageJob.Options.description(of: "damaged")))
    var damaged: String?

    @Flag(help: "Print the result (outputs, renditions, segment durations, warnings) as JSON.")
    var json = false

    func run() throws {
        var values = OptionValues()
        values.add([
            "format": format, "segment_format": segmentFormat, "segment_duration": segmentDuration,
            "renditions": renditions, "preset": preset, "damaged": damaged,
        ])
        try DirectoryOutputArguments.run(
            PackageJob.self, options: values, input: input, directory: output, json: json
        ) {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw MediaError(.ioError, "cannot create \(output): \(error.localizedDescription)")
            }
        }
    }
}
