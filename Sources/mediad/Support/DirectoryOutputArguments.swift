import ArgumentParser
import Foundation
import MediaJobs

/// The output directory and `--json` flag of a command whose job writes several files side by side
/// (demux, waveform, thumbnails).
struct DirectoryOutputArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: "The directory to write into (created if missing).")
    var output: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    /// Runs one job of `Job`'s kind as `JobRunner.run` does, with the primary output in the directory, and
    /// reports the result.
    func run<Job: MediaJob>(_ job: Job.Type, options: OptionValues, input: String) throws {
        try Self.run(job, options: options, input: input, directory: output, json: json)
    }

    /// Runs one job with its primary output in `directory`, once its options parse and `prepare` (which
    /// may make the directory) succeeds, and reports the result: package, which declares its own directory
    /// flags, runs the same way.
    static func run<Job: MediaJob>(
        _ job: Job.Type, options: OptionValues, input: String, directory: String, json: Bool,
        prepare: () throws -> Void = {}
    ) throws {
        let result = try JobRunner.run { context in
            let options = try Job.Options(parsing: options.values)
            try prepare()
            let primary = (directory as NSString).appendingPathComponent(Job.primaryOutput(for: options))
            return try Job.run(options, inputs: JobInputFiles(["file": input]), output: primary, context: context)
        }
        try JobRunner.report(result, json: json)
    }
}
