import CFFmpeg

/// Owns one `AVFrame`.
public final class Frame: LibavObject<AVFrame> {
    public init() {
        super.init("av_frame_alloc", allocate: av_frame_alloc, free: { av_frame_free(&$0) })
    }

    public func unref() { av_frame_unref(pointer) }

    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }

    /// The decoded audio samples, plane after plane, as bytes: what two frames compare by.
    public var sampleBytes: [UInt8] {
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        let channels = Int(pointer.pointee.ch_layout.nb_channels)
        let planar = av_sample_fmt_is_planar(format) != 0
        let planeSize = sampleCount * Int(av_get_bytes_per_sample(format)) * (planar ? 1 : channels)
        return (0..<(planar ? channels : 1)).flatMap { plane in
            pointer.pointee.extended_data[plane].map { Array(UnsafeBufferPointer(start: $0, count: planeSize)) } ?? []
        }
    }
}
