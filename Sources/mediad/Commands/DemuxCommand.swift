import ArgumentParser
import Foundation
import MediaJobs

struct DemuxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demux",
        abstract: "Split an MP4/MOV/M4A into ADTS AAC and Annex-B H.264/H.265 files plus info.json.",
        discussion: """
            Writes audio.aac (ADTS headers built from the track's AudioSpecificConfig), video.h264 or \
            video.h265 (Annex-B, parameter sets before every keyframe) and info.json (the probe of the \
            input, saying which track went to which file and why others were skipped).

            Example: mediad demux talk.mp4 -o talk/
            """)

    @Argument(help: "The MP4-family input file.")
    var input: String

    @OptionGroup var destination: DirectoryOutputArguments

    @Option(help: .option(DemuxJob.Options.description(of: "damaged")))
    var damaged: String?

    func run() throws {
        var values = OptionValues()
        values.add("damaged", damaged)
        try destination.run(DemuxJob.self, options: values, input: input)
    }
}
