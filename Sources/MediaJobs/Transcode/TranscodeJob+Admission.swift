import MediaCore

extension TranscodeJob {
    /// Refuses at upload an output picture the video encoder cannot take (`VideoCodec.sizeLimit`), when
    /// the options leave its size to the source: the size of the probe's first video track, turned upright
    /// unless `rotate=keep`, with a `width` or `height` given scaled to its shape. The job checks the size
    /// it really gets before it opens the encoder, so an input by URL fails the same way. No probe is made
    /// where the answer cannot be no: both sides given (the options were checked), or neither for an
    /// encoder that takes every size an input may declare (`InputPolicy.maxDimension`).
    public static func admission(for options: Options, memoryLimit: Int64?) -> (@Sendable (MediaInfo) throws -> Void)? {
        guard let limit = options.videoCodec.sizeLimit, options.width == nil || options.height == nil else {
            return nil
        }
        let largest = Int(InputPolicy.transcoding.maxDimension)
        let takesAnySource = [limit.widths, limit.heights].allSatisfy { $0.lowerBound <= 1 && $0.upperBound >= largest }
        if options.width == nil && options.height == nil && takesAnySource { return nil }
        return { info in
            guard let source = info.pictureSize(upright: options.rotate == .auto) else { return }
            let size = ScaledSize(width: options.width, height: options.height, source: source)
            try limit.check(
                width: size.width, height: size.height,
                what: "the output picture (from the \(source.width)x\(source.height) source; give width and height)")
        }
    }
}
