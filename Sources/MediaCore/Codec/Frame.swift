import CFFmpeg

/// Owns one `AVFrame`.
public final class Frame {
    public let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    public func unref() { av_frame_unref(pointer) }

    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
}
