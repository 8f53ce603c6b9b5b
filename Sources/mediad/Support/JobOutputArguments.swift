import ArgumentParser

/// The output file and `--json` flag of every command that runs one job and writes one file.
struct JobOutputArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: "The output file.")
    var output: String

    @Flag(help: "Print the result (outputs, tracks, warnings) as JSON.")
    var json = false

    /// `--format` when given, else the format the output's extension names: by `formats`, or by the
    /// containers remux and mux write when there is no table; exits with `invalid_option` when it names none.
    func format(_ given: String?, byExtension formats: [String: String]? = nil) throws -> String {
        if let given { return given }
        guard let formats else { return try OutputPath.format(of: output) }
        return try OutputPath.format(of: output, byExtension: formats)
    }
}
