import MediaCore

extension RemuxJob {
    /// Which kinds of track a remux keeps.
    public enum TrackSelection: String, Sendable, Codable, CaseIterable {
        case all, audio, video
    }

    /// Remux options, after defaults. Parsed from `format`, `faststart`, `fragmented`, `global_sidx`, `tracks`,
    /// `start`, `end`, `fps`, `damaged`.
    public struct Options: Sendable, Codable, Equatable {
        public var format: ContainerFormat
        /// moov before mdat; defaults to true for mp4/mov/m4a, not applicable elsewhere.
        public var faststart: Bool
        /// Fragmented MP4 (moof/mdat pairs after an empty moov).
        public var fragmented: Bool
        /// Whether a fragmented file gets a global `sidx` and a `mehd` when its fragments are written; nil (the
        /// default, not stored in records) means yes. Both are written by rewriting the file at its end, so
        /// `false` gives a file written front to back, readable while the job runs (`growth(ofOutput:)`).
        public var globalSidx: Bool?
        public var tracks: TrackSelection
        /// Seconds; the cut happens at the last keyframe at or before it.
        public var start: Double?
        /// Seconds; the cut happens at the first keyframe at or after it.
        public var end: Double?
        /// Frame rate for raw H.264/H.265 input, which has no timestamps (default 25); unused otherwise.
        public var fps: FrameRate?
        /// What a cut or partly malformed input gives: what could be read, with a warning (default), or
        /// a refusal.
        public var damaged: DamagedInput

        public init(
            format: ContainerFormat = .mp4, faststart: Bool? = nil, fragmented: Bool = false, globalSidx: Bool? = nil,
            tracks: TrackSelection = .all, start: Double? = nil, end: Double? = nil, fps: FrameRate? = nil,
            damaged: DamagedInput = .salvage
        ) throws {
            self.format = format
            self.faststart = faststart ?? format.isISOBaseMedia
            self.fragmented = fragmented
            self.globalSidx = globalSidx
            self.tracks = tracks
            self.start = start
            self.end = end
            self.fps = fps
            self.damaged = damaged
            for (name, seconds) in [("start", start), ("end", end)] {
                if let seconds, !(0...OptionReader.maximumSeconds).contains(seconds) {
                    throw MediaError(
                        .invalidOption, "\(name) (\(seconds)) is outside 0…\(Int(OptionReader.maximumSeconds)) seconds")
                }
            }
            if !format.isISOBaseMedia && (faststart == true || fragmented) {
                throw MediaError(.invalidOption, "faststart and fragmented apply to mp4, mov and m4a, not \(format)")
            }
            if globalSidx != nil && !fragmented {
                throw MediaError(.invalidOption, "global_sidx applies to fragmented output")
            }
            if format == .m4a && tracks == .video {
                throw MediaError(.invalidOption, "m4a holds audio only; tracks=video needs mp4, mov or another format")
            }
            if let start, let end, end <= start {
                throw MediaError(.invalidOption, "end (\(end)) must be after start (\(start))")
            }
        }

        enum CodingKeys: String, CodingKey {
            case format, faststart, fragmented
            case globalSidx = "global_sidx"
            case tracks, start, end, fps, damaged
        }

        /// Decodes stored options through the same defaults and checks as `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try self.init(
                format: container.decodeIfPresent(ContainerFormat.self, forKey: .format) ?? .mp4,
                faststart: container.decodeIfPresent(Bool.self, forKey: .faststart),
                fragmented: container.decodeIfPresent(Bool.self, forKey: .fragmented) ?? false,
                globalSidx: container.decodeIfPresent(Bool.self, forKey: .globalSidx),
                tracks: container.decodeIfPresent(TrackSelection.self, forKey: .tracks) ?? .all,
                start: container.decodeIfPresent(Double.self, forKey: .start),
                end: container.decodeIfPresent(Double.self, forKey: .end),
                fps: container.decodeIfPresent(FrameRate.self, forKey: .fps),
                damaged: container.decodeIfPresent(DamagedInput.self, forKey: .damaged) ?? .salvage)
        }

        /// Parses string options as the CLI and HTTP API receive them.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            let format = try reader.choice("format", as: ContainerFormat.self) ?? .mp4
            let faststart = try reader.boolean("faststart")
            let fragmented = try reader.boolean("fragmented") ?? false
            let globalSidx = try reader.boolean("global_sidx")
            let tracks = try reader.choice("tracks", as: TrackSelection.self) ?? .all
            let start = try reader.seconds("start")
            let end = try reader.seconds("end")
            let fps = try reader.frameRate("fps")
            let damaged = try reader.choice("damaged", as: DamagedInput.self) ?? .salvage
            try reader.finish()
            try self.init(
                format: format, faststart: faststart, fragmented: fragmented, globalSidx: globalSidx, tracks: tracks,
                start: start, end: end, fps: fps, damaged: damaged)
        }

        /// Whether the output is a fragmented ISO file.
        var writesFragments: Bool { format.isISOBaseMedia && fragmented }

        /// Whether the output is a fragmented ISO file with a global `sidx` (and so a `mehd`).
        var indexesFragments: Bool { writesFragments && globalSidx != false }

        /// Muxer options (movflags) for the ISO formats. Fragmented files get a global `sidx` (an index of
        /// every fragment after the `moov`), so a player can start and seek without reading every `moof`,
        /// unless `global_sidx` is false.
        func muxerOptions(hasVideo: Bool) -> [String: String] {
            guard format.isISOBaseMedia else { return [:] }
            if fragmented {
                let index = globalSidx == false ? "" : "+global_sidx"
                if !hasVideo {
                    return ["movflags": "+empty_moov+default_base_moof" + index, "frag_duration": "2000000"]
                }
                return ["movflags": "+frag_keyframe+empty_moov+default_base_moof" + index]
            }
            return faststart ? ["movflags": "+faststart"] : [:]
        }
    }
}
