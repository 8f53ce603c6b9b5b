import MediaCore

/// What a decode job wrote, and the facts of the decoded audio.
public struct DecodeResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    public var sampleRate: Int
    public var channels: Int
    /// Sample format of the output samples.
    public var sampleFormat: SampleFormat
    /// Decoded samples per channel (after priming and edit-list trims).
    public var samples: Int64
    /// Decoded duration in seconds.
    public var duration: Double

    enum CodingKeys: String, CodingKey {
        case outputs, warnings
        case sampleRate = "sample_rate"
        case channels
        case sampleFormat = "sample_format"
        case samples, duration
    }
}
