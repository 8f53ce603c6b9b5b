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
              mediad encode capture.pcm -o capture.aac --sample-rate 48000 --channels 1 --sample-format f32le
              mediad encode capture.pcm -o capture.wav --sample-rate 16000 --channels 1
            """)

    @Argument(help: "Raw PCM or WAV input.")
    var input: String

    @Option(name: .shortAndLong, help: "The output file.")
    var output: String

    @Option(help: "m4a, adts, mp4 or wav (default: from the output's extension: .m4a, .aac, .mp4, .wav).")
    var format: String?

    @Option(help: "Raw PCM sample rate in Hz, 8000–192000 (default 44100).")
    var sampleRate: String?

    @Option(help: "Raw PCM channel count, 1–8 (default 2).")
    var channels: String?

    @Option(help: "Raw PCM sample format: s16le, s16be, s24le, s32le, f32le, f64le, u8 (default s16le).")
    var sampleFormat: String?

    @Option(help: "AAC bit rate, e.g. 96k or 128000 (default 96k).")
    var bitrate: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        var values = OptionValues()
        values.add(
            "format",
            try format
                ?? OutputPath.format(
                    of: output, byExtension: ["m4a": "m4a", "aac": "adts", "adts": "adts", "mp4": "mp4", "wav": "wav"]))
        values.add("sample_rate", sampleRate)
        values.add("channels", channels)
        values.add("sample_format", sampleFormat)
        values.add("bitrate", bitrate)
        let result = try JobRunner.run { context in
            try EncodeJob(input: input, output: output, options: try .init(parsing: values.values)).run(context)
        }
        try JobRunner.report(result, json: json)
    }
}
