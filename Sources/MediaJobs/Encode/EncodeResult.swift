import MediaCore

/// What an encode job wrote, and the facts of the audio it encoded.
public struct EncodeResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// Sample rate of the output in Hz (the input's, unless AAC could not take it).
    public var sampleRate: Int
    public var channels: Int
    /// Sample format of the input (stated by the WAV header or by the options for raw PCM).
    public var inputSampleFormat: SampleFormat
    /// Encoded frames written: AAC access units, or PCM packets for WAV output.
    public var frames: Int
    /// Input samples per channel.
    public var samples: Int64
    /// Input duration in seconds.
    public var duration: Double
    /// AAC target bit rate, or the PCM bit rate of WAV output, in bits per second.
    public var bitrate: Int

    enum CodingKeys: String, CodingKey {
        case outputs, warnings
        case sampleRate = "sample_rate"
        case channels
        case inputSampleFormat = "input_sample_format"
        case frames, samples, duration, bitrate
    }
}
