import Foundation
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

    /// Package options, after defaults. Parsed from `format`, `segment_format`, `segment_duration`,
    /// `renditions`, `preset` and `damaged`.
    public struct Options: Sendable, Codable, Equatable {
        public var format: ManifestFormat
        public var segmentFormat: SegmentFormat
        /// The target segment length in seconds; segments end at the first keyframe past it.
        public var segmentDuration: Double
        /// The ABR ladder to encode, largest first; empty for one rendition by stream copy.
        public var renditions: [LadderRung]
        /// x264's speed preset for the ladder; nil (only) without `renditions`.
        public var preset: TranscodeJob.Preset?
        /// What a cut or partly malformed input gives: what could be read, with a warning, or a refusal.
        public var damaged: DamagedInput

        /// The ladder's x264 preset when none is given.
        public static let defaultPreset = TranscodeJob.Preset.veryfast

        /// The segment lengths a package may target, in seconds.
        public static let segmentDurations: ClosedRange<Double> = 1...60

        enum CodingKeys: String, CodingKey {
            case format
            case segmentFormat = "segment_format"
            case segmentDuration = "segment_duration"
            case renditions, preset, damaged
        }

        public init(
            format: ManifestFormat = .hls, segmentFormat: SegmentFormat = .fmp4, segmentDuration: Double = 6,
            renditions: [LadderRung] = [], preset: TranscodeJob.Preset? = nil, damaged: DamagedInput = .salvage
        ) throws {
            self.damaged = damaged
            self.format = format
            self.segmentFormat = segmentFormat
            self.segmentDuration = segmentDuration
            self.renditions = renditions.sorted { $0.height > $1.height }
            self.preset = renditions.isEmpty ? preset : preset ?? Self.defaultPreset
            if renditions.isEmpty, preset != nil {
                throw MediaError(
                    .invalidOption, "preset sets the speed of the ladder's encoder: give renditions too")
            }
            if Set(renditions).count != renditions.count {
                throw MediaError(.invalidOption, "renditions names a rendition twice")
            }
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
                segmentDuration: container.decodeIfPresent(Double.self, forKey: .segmentDuration) ?? 6,
                renditions: container.decodeIfPresent([LadderRung].self, forKey: .renditions) ?? [],
                preset: container.decodeIfPresent(TranscodeJob.Preset.self, forKey: .preset),
                damaged: container.decodeIfPresent(DamagedInput.self, forKey: .damaged) ?? .salvage)
        }

        /// Encodes what was given: `renditions` and `preset` only for a ladder.
        public func encode(to encoder: Swift.Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(format, forKey: .format)
            try container.encode(segmentFormat, forKey: .segmentFormat)
            try container.encode(segmentDuration, forKey: .segmentDuration)
            if !renditions.isEmpty { try container.encode(renditions, forKey: .renditions) }
            try container.encodeIfPresent(preset, forKey: .preset)
            try container.encode(damaged, forKey: .damaged)
        }

        /// Parses string options as the CLI and HTTP API receive them; `renditions` is a comma list of
        /// `LadderRung` names.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            let format = try reader.choice("format", as: ManifestFormat.self) ?? .hls
            let segmentFormat = try reader.choice("segment_format", as: SegmentFormat.self) ?? .fmp4
            let segmentDuration = try reader.seconds("segment_duration") ?? 6
            let names = LadderRung.allCases.map(\.rawValue).joined(separator: ", ")
            let renditions =
                try reader.value("renditions", expecting: "a comma list of \(names)") { raw -> [LadderRung]? in
                    let rungs = raw.split(separator: ",", omittingEmptySubsequences: false).map {
                        LadderRung(rawValue: $0.trimmingCharacters(in: .whitespaces))
                    }
                    return rungs.contains(nil) ? nil : rungs.compactMap { $0 }
                } ?? []
            let preset = try reader.choice("preset", as: TranscodeJob.Preset.self)
            let damaged = try reader.choice("damaged", as: DamagedInput.self) ?? .salvage
            try reader.finish()
            try self.init(
                format: format, segmentFormat: segmentFormat, segmentDuration: segmentDuration, renditions: renditions,
                preset: preset, damaged: damaged)
        }
    }
}
