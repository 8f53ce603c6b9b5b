import ArgumentParser
import MediaJobs

/// The output file, its `--format` and the `--json` flag of every command that runs one job of `Job`'s kind
/// and writes one file.
struct JobOutputArguments<Job: MediaJob>: ParsableArguments {
    @Option(name: .shortAndLong, help: "The output file.")
    var output: String

    @Flag(help: "Print the result (outputs, tracks, warnings) as JSON.")
    var json = false

    @Option(help: .option(Job.Options.description(of: "format"), defaultFromOutput: true))
    var format: String?

    /// Adds the `format` option to `values`: `--format` when given, else the format the output's extension
    /// names: by `formats`, or by the containers remux and mux write when there is no table; exits with
    /// `invalid_option` when it names none.
    func addFormat(to values: inout OptionValues, byExtension formats: [String: String]? = nil) throws {
        if let format {
            values.add("format", format)
        } else if let formats {
            values.add("format", try OutputPath.format(of: output, byExtension: formats))
        } else {
            values.add("format", try OutputPath.format(of: output))
        }
    }
}
