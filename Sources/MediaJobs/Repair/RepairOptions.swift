import MediaCore

extension RepairJob {
    /// The containers a repair writes: the ISO ones a recording comes in, and Matroska, which takes every
    /// codec a repair rebuilds.
    public enum Format: String, Sendable, Codable, CaseIterable {
        case mp4, mov, mkv

        public var container: ContainerFormat {
            switch self {
            case .mp4: .mp4
            case .mov: .mov
            case .mkv: .mkv
            }
        }
    }

    /// The options of a repair job.
    public struct Options: Sendable, Codable, Equatable {
        /// The container to write.
        public var format: Format

        public init(format: Format = .mp4) { self.format = format }

        /// Decodes stored options with the defaults `init(parsing:)` applies.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decodeIfPresent(Format.self, forKey: .format) ?? .mp4
        }

        /// Reads `format`; any other key is an error.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            format = try reader.choice("format", as: Format.self) ?? .mp4
            try reader.finish()
        }
    }
}
