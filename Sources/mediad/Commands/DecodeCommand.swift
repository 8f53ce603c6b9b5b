import ArgumentParser
import MediaJobs

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode AAC (ADTS, M4A or the first audio track of an MP4) to WAV or raw PCM.",
        discussion: """
            Encoder priming recorded in an MP4 edit list is trimmed. Raw PCM has no header: remember the \
            rate and channels the result reports (--json).

            Examples:
              mediad decode voice.m4a -o voice.wav
              mediad decode voice.aac -o voice.pcm --sample-format f32le
            """)

    @Argument(help: "ADTS, M4A or MP4 input.")
    var input: String

    @OptionGroup var destination: JobOutputArguments

    @Option(help: .option(DecodeJob.Options.description(of: "format"), defaultFromOutput: true))
    var format: String?

    @Option(help: .option(DecodeJob.Options.description(of: "sample_format")))
    var sampleFormat: String?

    func run() throws {
        var values = OptionValues()
        values.add(
            "format",
            try format
                ?? OutputPath.format(of: destination.output, byExtension: ["wav": "wav", "pcm": "pcm", "raw": "pcm"]))
        values.add("sample_format", sampleFormat)
        try JobRunner.run(DecodeJob.self, options: values, inputs: ["file": input], to: destination)
    }
}
