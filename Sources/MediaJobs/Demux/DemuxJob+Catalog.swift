import Foundation
import MediaCore

extension DemuxJob: SingleFileJob {
    public static let name = "demux"

    public static let inputPolicy = InputPolicy.streamCopy
    public static let inputSummary = "an MP4-family file"

    /// `info.json`: the one output every demux writes, whatever tracks the input has. Demux writes every
    /// file into the directory of the `output` path it runs with.
    public static func primaryOutput(for options: Options) -> String { infoFileName }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> DemuxResult {
        try DemuxJob(
            input: inputs.path(of: "file"), outputDirectory: OutputDirectory.containing(output),
            damaged: options.damaged
        ).run(context)
    }

    /// Demux's one option: what a cut or partly malformed input gives.
    public struct Options: JobOptionSet {
        public static let descriptions: [OptionDescription] = [.damaged]

        public var damaged: DamagedInput

        public init(damaged: DamagedInput = .salvage) { self.damaged = damaged }

        /// Reads `damaged`.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            damaged = try reader.choice("damaged", as: DamagedInput.self) ?? .salvage
            try reader.finish()
        }

        /// Decodes stored options (a record of an earlier version has none: salvage).
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            damaged = try container.decodeIfPresent(DamagedInput.self, forKey: .damaged) ?? .salvage
        }
    }
}

extension JobKind {
    public static let demux = DemuxJob.kind
}
