import Foundation
import MediaCore

extension DemuxJob: MediaJob {
    public static let name = "demux"

    public static let inputs = [
        JobInputPart(
            "file", accepting: acceptedInputs, policy: .streamCopy, summary: "an MP4-family file")
    ]

    /// `info.json`: the one output every demux writes, whatever tracks the input has. Demux writes every
    /// file into the directory of the `output` path it runs with.
    public static func primaryOutput(for options: Options) -> String { infoFileName }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> DemuxResult {
        try DemuxJob(input: inputs.path(of: "file"), outputDirectory: OutputDirectory.containing(output)).run(context)
    }

    /// Demux takes no options.
    public struct Options: JobOptionSet {
        public static let descriptions: [OptionDescription] = []

        public init() {}

        /// Accepts no key.
        public init(parsing values: [String: String]) throws {
            try OptionReader(values).finish()
        }
    }
}

extension JobKind {
    public static let demux = DemuxJob.kind
}
