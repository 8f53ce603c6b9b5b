import MediaCore

/// What a decode job wrote, and the facts of the decoded audio or video: the audio fields for samples,
/// the video ones for frames, the others absent.
public struct DecodeResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    public var sampleRate: Int?
    public var channels: Int?
    /// Sample format of the output samples.
    public var sampleFormat: SampleFormat?
    /// Decoded samples per channel (after priming and edit-list trims).
    public var samples: Int64?
    /// Frame width in pixels.
    public var width: Int?
    /// Frame height in pixels.
    public var height: Int?
    /// libav's name of the frames' pixel format in the output (`yuv420p`, `nv12`, `yuv420p10le`, …).
    public var pixelFormat: String?
    /// The frame rate a Y4M header states, as an exact fraction (`30/1`, `30000/1001`).
    public var frameRate: String?
    /// Frames written: every frame the decoder output.
    public var frames: Int64?
    /// Decoded duration in seconds: samples over the rate, or frames over the frame rate.
    public var duration: Double

    enum CodingKeys: String, CodingKey {
        case outputs, warnings
        case sampleRate = "sample_rate"
        case channels
        case sampleFormat = "sample_format"
        case samples, width, height
        case pixelFormat = "pixel_format"
        case frameRate = "frame_rate"
        case frames, duration
    }
}
