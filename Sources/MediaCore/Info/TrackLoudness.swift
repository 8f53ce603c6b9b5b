/// The loudness of one audio track by EBU R128 (ITU-R BS.1770), as libavfilter's `ebur128` measures it:
/// what `probe` reports with `loudness=true`.
public struct TrackLoudness: Codable, Sendable, Equatable {
    /// Integrated loudness over the whole track, in LUFS (gated; −70 for silence).
    public var integrated: Double
    /// Loudness range (LRA), in LU.
    public var range: Double
    /// The highest true (4× oversampled) peak of any channel, in dBTP; nil for digital silence.
    public var truePeak: Double?
    /// The highest sample of any channel, in dBFS; nil for digital silence.
    public var samplePeak: Double?

    public init(integrated: Double, range: Double, truePeak: Double?, samplePeak: Double?) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.samplePeak = samplePeak
    }

    enum CodingKeys: String, CodingKey {
        case integrated, range
        case truePeak = "true_peak"
        case samplePeak = "sample_peak"
    }
}
