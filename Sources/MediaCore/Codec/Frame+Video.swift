import CFFmpeg

extension Frame {
    /// Presentation time in the time base of whoever produced the frame, or nil when it has none.
    public var pts: Int64? {
        get { pointer.pointee.pts == mediad_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? mediad_nopts_value() }
    }

    /// A decoded frame's time as libav's decoder best guesses it (its pts, or one inferred from the
    /// packets' timing when the stream's timestamps are missing or broken), or nil.
    public var bestEffortTimestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value == mediad_nopts_value() ? nil : value
    }

    /// Width in pixels of a video frame.
    public var width: Int { Int(pointer.pointee.width) }

    /// Height in pixels of a video frame.
    public var height: Int { Int(pointer.pointee.height) }

    /// Pixel format of a video frame.
    public var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }

    /// The picture type an encoder is asked for (`AV_PICTURE_TYPE_I` forces a keyframe), or that a decoder
    /// found.
    public var pictureType: AVPictureType {
        get { pointer.pointee.pict_type }
        set { pointer.pointee.pict_type = newValue }
    }

    /// A value a filter attached to this frame (e.g. `lavfi.ssim.All` from `ssim`), or nil.
    public func metadata(_ key: String) -> String? {
        av_dict_get(pointer.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
    }
}
