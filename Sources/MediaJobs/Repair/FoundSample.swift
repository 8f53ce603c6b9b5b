import MediaCore

/// One sample a repair found in the media data: where its bytes are and how it is timed.
struct FoundSample {
    enum Track {
        case video, audio
    }

    let track: Track
    let offset: Int64
    let size: Int
    let isKeyframe: Bool
    /// The picture's order (video).
    let picture: PictureOrder?
    /// Where the sample starts on the audio clock, in samples from the first one written (audio).
    let audioStart: Int64
    /// How many audio samples it holds (audio).
    let audioSamples: Int

    static func video(offset: Int64, size: Int, picture: PictureOrder) -> FoundSample {
        FoundSample(
            track: .video, offset: offset, size: size, isKeyframe: picture.isKeyframe, picture: picture,
            audioStart: 0, audioSamples: 0)
    }

    static func audio(offset: Int64, size: Int, start: Int64, samples: Int) -> FoundSample {
        FoundSample(
            track: .audio, offset: offset, size: size, isKeyframe: true, picture: nil, audioStart: start,
            audioSamples: samples)
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
