import Foundation
import MediaCore

extension DemuxJob: SingleFileJob {
    public static let name = "demux"
    public typealias Result = DemuxResult

    static let inputPolicy = InputPolicy.streamCopy
    static let inputSummary = "an MP4-family file"

    /// `info.json`: the one output every demux writes, whatever tracks the input has. Demux writes every
    /// file into the directory of the `output` path it runs with.
    public static func primaryOutput(for options: Options) -> String { infoFileName }

    /// Writes into the directory of `output`, the primary output's path.
    init(input: String, output: String, options: Options) {
        self.init(input: input, outputDirectory: OutputDirectory.containing(output), damaged: options.damaged)
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
