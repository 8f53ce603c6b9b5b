import MediaCore

extension ThumbnailsJob {
    /// Where to take pictures, how to choose each, and how to write them.
    public struct Options: Sendable, Codable, Equatable {
        /// How the frame for a point is chosen.
        public enum Mode: String, Sendable, Codable, CaseIterable {
            /// The first frame shown at or after the point.
            case exact
            /// The most representative frame of those from the point to the next (at most 100 frames, two
            /// seconds), by libavfilter's `thumbnail` filter: skips black frames and fades.
            case scene
        }

        /// Seconds to take pictures at; exactly one of `times`, `every` and `count` is set.
        public var times: [Double]?
        /// A picture every this many seconds from the start.
        public var every: Double?
        /// This many pictures, at the middles of equal parts of the duration.
        public var count: Int?
        public var mode: Mode
        /// The pictures' size; one alone keeps the aspect ratio, neither keeps the frame's size.
        public var width: Int?
        public var height: Int?
        public var format: ImageEncoder.Format
        /// Also a tiled sheet of every picture, `sprite.<ext>`, and `sprite.vtt` pointing into it.
        public var sprite: Bool

        /// The most pictures one job takes.
        public static let maximumCount = 1000
        static let sizes = 16...16384

        public init(
            times: [Double]? = nil, every: Double? = nil, count: Int? = nil, mode: Mode = .exact, width: Int? = nil,
            height: Int? = nil, format: ImageEncoder.Format = .jpeg, sprite: Bool = false
        ) {
            self.times = times
            self.every = every
            self.count = count ?? (times == nil && every == nil ? 1 : nil)
            self.mode = mode
            self.width = width
            self.height = height
            self.format = format
            self.sprite = sprite
        }

        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            let times = try reader.value(
                "times", expecting: "expected seconds separated by commas, e.g. 1,2.5,10", Self.parseTimes)
            let every = try reader.seconds("every")
            let count = try reader.integer("count", in: 1...Self.maximumCount)
            let mode = try reader.choice("mode", as: Mode.self) ?? .exact
            let width = try reader.integer("width", in: Self.sizes)
            let height = try reader.integer("height", in: Self.sizes)
            let format = try reader.choice("format", as: ImageEncoder.Format.self) ?? .jpeg
            let sprite = try reader.boolean("sprite") ?? false
            try reader.finish()
            self.init(
                times: times, every: every, count: count, mode: mode, width: width, height: height, format: format,
                sprite: sprite)
            try validate()
        }

        /// Decodes stored options with the defaults and checks of `init(parsing:)`.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                times: try container.decodeIfPresent([Double].self, forKey: .times),
                every: try container.decodeIfPresent(Double.self, forKey: .every),
                count: try container.decodeIfPresent(Int.self, forKey: .count),
                mode: try container.decodeIfPresent(Mode.self, forKey: .mode) ?? .exact,
                width: try container.decodeIfPresent(Int.self, forKey: .width),
                height: try container.decodeIfPresent(Int.self, forKey: .height),
                format: try container.decodeIfPresent(ImageEncoder.Format.self, forKey: .format) ?? .jpeg,
                sprite: try container.decodeIfPresent(Bool.self, forKey: .sprite) ?? false)
            try validate()
        }

        /// `invalid_option` unless exactly one of `times`, `every` and `count` is set and in range, and the
        /// size is in range.
        public func validate() throws {
            let given = [times != nil ? "times" : nil, every != nil ? "every" : nil, count != nil ? "count" : nil]
                .compactMap { $0 }
            guard given.count == 1 else {
                throw MediaError(
                    .invalidOption,
                    "give one of times, every and count (got \(given.isEmpty ? "none" : given.joined(separator: ", ")))"
                )
            }
            if let times, times.isEmpty || times.count > Self.maximumCount {
                throw MediaError(.invalidOption, "times takes 1 to \(Self.maximumCount) seconds")
            }
            if let times, times.contains(where: { !$0.isFinite || $0 < 0 || $0 > OptionReader.maximumSeconds }) {
                throw MediaError(.invalidOption, "times must be seconds from 0 to \(Int(OptionReader.maximumSeconds))")
            }
            if let every, !(every >= 0.001 && every <= OptionReader.maximumSeconds) {
                throw MediaError(.invalidOption, "every must be at least 0.001 seconds (got \(every))")
            }
            if let count, !(1...Self.maximumCount).contains(count) {
                throw MediaError(.invalidOption, "count must be from 1 to \(Self.maximumCount) (got \(count))")
            }
            for side in [width, height].compactMap({ $0 }) where !Self.sizes.contains(side) {
                throw MediaError(.invalidOption, "width and height must be from 16 to 16384 (got \(side))")
            }
            let limit = format.sizeLimit
            switch (width, height) {
            case (let width?, let height?): try limit.check(width: width, height: height, what: "the pictures")
            case (let width?, nil): try limit.check(width: width, what: "the pictures")
            case (nil, let height?): try limit.check(height: height, what: "the pictures")
            case (nil, nil): break
            }
        }

        /// `1,2.5,10` → [1, 2.5, 10]; nil unless every item is digits with an optional decimal fraction (no
        /// sign, exponent or space) of at most `OptionReader.maximumSeconds`.
        static func parseTimes(_ text: String) -> [Double]? {
            var times: [Double] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count <= 2,
                    parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                    let value = Double(item), value <= OptionReader.maximumSeconds
                else { return nil }
                times.append(value)
            }
            return times.isEmpty || times.count > maximumCount ? nil : times
        }

        enum CodingKeys: String, CodingKey {
            case times, every, count, mode, width, height, format, sprite
        }
    }
}
