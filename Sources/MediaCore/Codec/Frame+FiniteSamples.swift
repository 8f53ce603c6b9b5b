import CFFmpeg

extension Frame {
    /// The first sample frame of this audio frame that holds a NaN or an infinity in any channel, for float
    /// and double samples (packed or planar); nil when every sample is finite or the samples are integers.
    ///
    /// Encoders refuse such samples with a generic error, so a caller checks first and reports the offset.
    public var firstNonFiniteSample: Int? {
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_FLT: return firstNonFinite(Float.self, planar: av_sample_fmt_is_planar(format) != 0)
        case AV_SAMPLE_FMT_DBL: return firstNonFinite(Double.self, planar: av_sample_fmt_is_planar(format) != 0)
        default: return nil
        }
    }

    private func firstNonFinite<Sample: BinaryFloatingPoint>(_ type: Sample.Type, planar: Bool) -> Int? {
        let channels = max(1, Int(pointer.pointee.ch_layout.nb_channels))
        let count = sampleCount
        guard count > 0, let planes = pointer.pointee.extended_data else { return nil }
        let planeCount = planar ? channels : 1
        let perPlane = planar ? count : count * channels
        var first: Int? = nil
        for plane in 0..<planeCount {
            guard let bytes = planes[plane] else { continue }
            let samples = UnsafeRawPointer(bytes).bindMemory(to: Sample.self, capacity: perPlane)
            for index in 0..<perPlane where !samples[index].isFinite {
                let frameIndex = planar ? index : index / channels
                first = min(first ?? frameIndex, frameIndex)
                break
            }
        }
        return first
    }
}
