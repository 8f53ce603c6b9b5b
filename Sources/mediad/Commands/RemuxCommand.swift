import ArgumentParser
import MediaCore
import MediaJobs

struct RemuxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remux",
        abstract: "Copy the audio and video of a file into another container, losslessly.",
        discussion: """
            No frame is decoded or re-encoded. Reads MP4/MOV/M4A/3GP, Matroska, MPEG-TS, FLV, ASF and raw \
            ADTS AAC, H.264/H.265 Annex-B or MPEG-4 video. Trims cut on keyframes; the actual cut points are \
            reported with --json. What the target cannot store (rotation in mkv, AAC priming in mkv/ts/flv/asf) \
            is reported as a warning. A cut or partly malformed input gives what can be read of it, with a \
            truncated_input warning saying what was lost (--damaged refuse to fail instead).

            Examples:
              mediad remux talk.mov -o talk.mp4
              mediad remux talk.mp4 -o talk.mkv --tracks audio
              mediad remux talk.mp4 -o clip.mp4 --start 10 --end 20 --json
            """)

    @Argument(help: "The input file.")
    var input: String

    @OptionGroup var destination: JobOutputArguments<RemuxJob>

    @Flag(inversion: .prefixedNo, help: .option(RemuxJob.Options.description(of: "faststart")))
    var faststart: Bool?

    @Flag(help: .option(RemuxJob.Options.description(of: "fragmented")))
    var fragmented = false

    @Flag(inversion: .prefixedNo, help: .option(RemuxJob.Options.description(of: "global_sidx")))
    var globalSidx: Bool?

    @Option(help: .option(RemuxJob.Options.description(of: "tracks")))
    var tracks: String?

    @Option(help: .option(RemuxJob.Options.description(of: "start")))
    var start: String?

    @Option(help: .option(RemuxJob.Options.description(of: "end")))
    var end: String?

    @Option(help: .option(RemuxJob.Options.description(of: "fps")))
    var fps: String?

    @Option(help: .option(RemuxJob.Options.description(of: "damaged")))
    var damaged: String?

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values)
        values.add([
            "faststart": faststart, "fragmented": fragmented ? true : nil, "global_sidx": globalSidx,
            "tracks": tracks, "start": start, "end": end, "fps": fps, "damaged": damaged,
        ])
        try JobRunner.run(RemuxJob.self, options: values, inputs: ["file": input], to: destination)
    }
}
