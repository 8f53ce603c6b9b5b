import ArgumentParser
import MediaJobs

struct MuxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mux",
        abstract: "Put raw ADTS AAC and/or raw H.264/H.265 (Annex-B) into MP4, M4A, MOV, MKV, ASF, FLV or MPEG-TS.",
        discussion: """
            Annex-B video has no timestamps: frames are timed at --fps, and presentation times come from the \
            picture order count in the slice headers, so streams with B-frames play every frame in order. \
            Audio is timed by its frame count and gets its AudioSpecificConfig from the ADTS headers. Packets \
            are interleaved by decode time; MP4, M4A and MOV put the moov box first.

            Examples:
              mediad mux --audio voice.aac --video camera.h264 -o clip.mp4 --fps 30
              mediad mux --video screen.h265 -o screen.mkv --fps 30000/1001
              mediad mux --audio voice.aac -o voice.m4a
            """)

    @Option(help: "Raw AAC in ADTS frames.")
    var audio: String?

    @Option(help: "Raw H.264 or H.265 in Annex-B format.")
    var video: String?

    @OptionGroup var destination: JobOutputArguments<MuxJob>

    @Option(help: .option(MuxJob.Options.description(of: "fps")))
    var fps: String?

    func run() throws {
        var values = OptionValues()
        try destination.addFormat(to: &values)
        values.add("fps", fps)
        try JobRunner.run(MuxJob.self, options: values, inputs: ["audio": audio, "video": video], to: destination)
    }
}
