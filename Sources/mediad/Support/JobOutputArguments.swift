import ArgumentParser

/// The output file and `--json` flag of every command that runs one job and writes one file.
struct JobOutputArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: "The output file.")
    var output: String

    @Flag(help: "Print the result (outputs, tracks, warnings) as JSON.")
    var json = false
}
