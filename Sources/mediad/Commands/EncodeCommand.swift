import ArgumentParser
import MediaJobs

struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode PCM (raw or WAV) to AAC-LC in M4A, MP4 or ADTS, or wrap it in a WAV header.",
        discussion: """
            A WAV input is recognised by its RIFF header and its own rate, channels and sample format are \
            used; an explicit option that disagrees with the header is an error. Raw PCM takes them from the \
            options, and its length must be a whole number of sample frames. M4A and MP4 record the encoder \
            priming in an edit list so players trim it; ADTS cannot (a warning says so).

            Examples:
              mediad encode voice.wav -o voice.m4a
              mediad encode capture.pcm -o capture.aac \\
                --sample-rate 48000 --channels 1 --sample-format f32le
              mediad encode capture.pcm -o capture.wav --sample-rate 16000 --channels 1
            """)

    @Argument(help: "Raw PCM or WAV input.")
    var input: String

    @OptionGroup var destination: JobOutputArguments

    @Option(help: .option(EncodeJob.Options.description(of: "format"), defaultFromOutput: true))
    var format: String?

    @Option(help: .option(EncodeJob.Options.description(of: "sample_rate")))
    var sampleRate: String?

    @Option(help: .option(EncodeJob.Options.description(of: "channels")))
    var channels: String?

    @Option(help: .option(EncodeJob.Options.description(of: "sample_format")))
    var sampleFormat: String?

    @Option(help: .option(EncodeJob.Options.description(of: "bitrate")))
    var bitrate: String?

    func run() throws {
        var values = OptionValues()
        values.add(
            "format",
            try format
                ?? OutputPath.format(
                    of: destination.output,
                    byExtension: ["m4a": "m4a", "aac": "adts", "adts": "adts", "mp4": "mp4", "wav": "wav"]))
        values.add("sample_rate", sampleRate)
        values.add("channels", channels)
        values.add("sample_format", sampleFormat)
        values.add("bitrate", bitrate)
        try JobRunner.run(EncodeJob.self, options: values, inputs: ["file": input], to: destination)
    }
}
