import CFFmpeg

/// Owns one `AVFrame`.
public final class Frame: LibavObject<AVFrame> {
    public init() {
        super.init("av_frame_alloc", allocate: av_frame_alloc, free: { av_frame_free(&$0) })
    }

    public func unref() { av_frame_unref(pointer) }

    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
}
