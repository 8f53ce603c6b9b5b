import MediaCore

/// What an encode job wrote: the facts of the PCM it encoded, and for camera frames the tracks of the
/// output as transcode reports them.
public struct EncodeResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// Sample rate of the output in Hz (the input's, unless AAC could not take it); nil without PCM.
    public var sampleRate: Int?
    public var channels: Int?
    /// Sample format of the PCM input (stated by the WAV header or by the options for raw PCM).
    public var inputSampleFormat: SampleFormat?
    /// Encoded audio frames written: AAC access units, or PCM packets for WAV output.
    public var frames: Int?
    /// PCM input samples per channel.
    public var samples: Int64?
    /// Input duration in seconds: of the PCM, or of the camera frames at their rate.
    public var duration: Double
    /// AAC target bit rate, or the PCM bit rate of WAV output, in bits per second.
    public var bitrate: Int?
    /// The libav muxer that wrote camera frames, e.g. `mp4` or `h264` (Annex-B).
    public var muxer: String?
    /// Camera frames' output tracks, video first: codec, profile, frames, achieved bit rate, geometry.
    public var tracks: [TranscodeResult.Track]?

    enum CodingKeys: String, CodingKey {
        case outputs, warnings
        case sampleRate = "sample_rate"
        case channels
        case inputSampleFormat = "input_sample_format"
        case frames, samples, duration, bitrate, muxer, tracks
    }
}
