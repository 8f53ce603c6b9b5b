import MediaCore

/// One sample a repair found in the media data: where its bytes are and how it is timed.
struct FoundSample {
    enum Track {
        case video, audio
    }

    /// How the sample is timed, which its track decides.
    enum Timing {
        /// A picture, by its order.
        case picture(PictureOrder)
        /// Audio: where the sample starts on the audio clock, in samples from the first one written, and how
        /// many samples it holds.
        case audio(start: Int64, samples: Int)
    }

    let offset: Int64
    let size: Int
    let timing: Timing

    var track: Track { if case .picture = timing { .video } else { .audio } }
    /// The picture's order (video).
    var picture: PictureOrder? { if case .picture(let order) = timing { order } else { nil } }
    /// Whether decoding can start at the sample: a keyframe picture, or any audio sample.
    var isKeyframe: Bool { picture?.isKeyframe ?? true }

    static func video(offset: Int64, size: Int, picture: PictureOrder) -> FoundSample {
        FoundSample(offset: offset, size: size, timing: .picture(picture))
    }

    static func audio(offset: Int64, size: Int, start: Int64, samples: Int) -> FoundSample {
        FoundSample(offset: offset, size: size, timing: .audio(start: start, samples: samples))
    }
}

/// Byte ranges of the media data that no sample took, merged where they touch.
struct SkippedRanges {
    private(set) var ranges: [Range<Int64>] = []

    var totalBytes: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    mutating func add(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        if let last = ranges.last, last.upperBound == range.lowerBound {
            ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            ranges.append(range)
        }
    }
}
