/// What a waveform job wrote, and the shape of its peaks.
public struct WaveformResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    public var sampleRate: Int
    /// Channels in the peaks: 1 merged, else the input's.
    public var channels: Int
    public var samplesPerPixel: Int
    public var bits: Int
    /// Min/max pairs per channel.
    public var length: Int
    /// Sample frames decoded.
    public var samples: Int64
    /// Seconds decoded.
    public var duration: Double

    enum CodingKeys: String, CodingKey {
        case outputs, warnings, channels, bits, length, samples, duration
        case sampleRate = "sample_rate"
        case samplesPerPixel = "samples_per_pixel"
    }
}
