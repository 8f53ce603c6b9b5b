import MediaCore

extension PackageJob {
    /// Which manifests a package has.
    public enum ManifestFormat: String, Sendable, Codable, CaseIterable {
        /// An HLS master playlist and a media playlist per rendition.
        case hls
        /// A DASH MPD.
        case dash
        /// Both, over one set of fMP4 (CMAF) segments.
        case cmaf

        var writesHLS: Bool { self != .dash }
        var writesDASH: Bool { self != .hls }
    }

    /// The container of the media segments.
    public enum SegmentFormat: String, Sendable, Codable, CaseIterable {
        /// Fragmented MP4: an initialization segment and `.m4s` media segments.
        case fmp4
        /// MPEG-TS segments, HLS only.
        case ts
    }

    /// Package options, after defaults. Parsed from `format`, `segment_format` and `segment_duration`.
    public struct Options: Sendable, Codable, Equatable {
        public var format: ManifestFormat
        public var segmentFormat: SegmentFormat
        /// The target segment length in seconds; segments end at the first keyframe past it.
        public var segmentDuration: Double

        /// The segment lengths a package may target, in seconds.
        public static let segmentDurations: ClosedRange<Double> = 1...60

        enum CodingKeys: String, CodingKey {
            case format
            case segmentFormat = "segment_format"
            case segmentDuration = "segment_duration"
        }

        public init(format: ManifestFormat = .hls, segmentFormat: SegmentFormat = .fmp4, segmentDuration: Double = 6)
            throws
        {
            self.format = format
            self.segmentFormat = segmentFormat
            self.segmentDuration = segmentDuration
            guard Self.segmentDurations.contains(segmentDuration) else {
                throw MediaError(
                    .invalidOption, "segment_duration (\(segmentDuration)) is outside 1…60 seconds")
            }
            if segmentFormat == .ts, format != .hls {
                throw MediaError(
                    .invalidOption,
                    "segment_format=ts is for HLS only: \(format) needs fMP4 segments (segment_format=fmp4)")
            }
        }

        /// Decodes stored options through the same defaults and checks as `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try self.init(
                format: container.decodeIfPresent(ManifestFormat.self, forKey: .format) ?? .hls,
                segmentFormat: container.decodeIfPresent(SegmentFormat.self, forKey: .segmentFormat) ?? .fmp4,
                segmentDuration: container.decodeIfPresent(Double.self, forKey: .segmentDuration) ?? 6)
        }

        /// Parses string options as the CLI and HTTP API receive them. `renditions` (an ABR ladder, which
        /// re-encodes) is refused by name until the transcode pipeline exists, rather than as an unknown option.
        public init(parsing values: [String: String]) throws {
            if values["renditions"] != nil {
                throw MediaError(
                    .invalidOption,
                    "renditions (an ABR ladder, re-encoded) is not available yet; without it the package is one "
                        + "rendition by stream copy")
            }
            var reader = OptionReader(values)
            let format = try reader.choice("format", as: ManifestFormat.self) ?? .hls
            let segmentFormat = try reader.choice("segment_format", as: SegmentFormat.self) ?? .fmp4
            let segmentDuration = try reader.seconds("segment_duration") ?? 6
            try reader.finish()
            try self.init(format: format, segmentFormat: segmentFormat, segmentDuration: segmentDuration)
        }
    }
}
