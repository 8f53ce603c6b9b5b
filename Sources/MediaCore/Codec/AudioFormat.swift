import CFFmpeg

/// The shape of decoded audio: in-memory sample format, rate and channel layout.
///
/// The layout is kept as a channel count plus a native-order mask (0 when the order is unknown), so the
/// value is plain data; `withChannelLayout` builds the `AVChannelLayout` libav wants when it is needed.
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleFormat: AVSampleFormat
    public var sampleRate: Int
    public var channels: Int
    /// Native-order channel mask, or 0 for "the default layout for `channels`".
    public var channelMask: UInt64

    public init(sampleFormat: AVSampleFormat, sampleRate: Int, channels: Int, channelMask: UInt64 = 0) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.channelMask = channelMask
    }

    /// The format of a decoded frame.
    public init(of frame: Frame) {
        let layout = frame.pointer.pointee.ch_layout
        self.init(
            sampleFormat: AVSampleFormat(rawValue: frame.pointer.pointee.format),
            sampleRate: Int(frame.pointer.pointee.sample_rate), channels: Int(layout.nb_channels),
            channelMask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0)
    }

    /// The format a codec context decodes to or encodes from.
    public init(of context: UnsafePointer<AVCodecContext>) {
        let layout = context.pointee.ch_layout
        self.init(
            sampleFormat: context.pointee.sample_fmt, sampleRate: Int(context.pointee.sample_rate),
            channels: Int(layout.nb_channels), channelMask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0)
    }

    /// The same rate and channels in another sample format.
    public func with(sampleFormat: AVSampleFormat) -> AudioFormat {
        var copy = self
        copy.sampleFormat = sampleFormat
        return copy
    }

    /// Calls `body` with this format's channel layout (the default one for the count when the mask is 0).
    @discardableResult
    public func withChannelLayout<R>(_ body: (UnsafeMutablePointer<AVChannelLayout>) throws -> R) rethrows -> R {
        var layout = AVChannelLayout()
        if channelMask == 0 || av_channel_layout_from_mask(&layout, channelMask) < 0
            || Int(layout.nb_channels) != channels
        {
            av_channel_layout_default(&layout, Int32(channels))
        }
        defer { av_channel_layout_uninit(&layout) }
        return try body(&layout)
    }

    /// The channel layout as libav names it (`mono`, `stereo`, `5.1`), which libavfilter's `abuffer` and
    /// `aformat` read.
    public var channelLayoutName: String {
        withChannelLayout { layout in
            var buffer = [CChar](repeating: 0, count: 128)
            av_channel_layout_describe(layout, &buffer, buffer.count)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Sets sample format, rate and layout on `frame` (before allocating its buffers).
    public func apply(to frame: Frame) throws {
        frame.pointer.pointee.format = sampleFormat.rawValue
        frame.pointer.pointee.sample_rate = Int32(sampleRate)
        try withChannelLayout { layout in
            try LibavError.check(
                av_channel_layout_copy(&frame.pointer.pointee.ch_layout, layout), "setting a channel layout",
                code: .internalError)
        }
    }

    /// e.g. "44100 Hz, 2 channels, s16".
    public var description: String {
        let name = av_get_sample_fmt_name(sampleFormat).map { String(cString: $0) } ?? "unknown"
        return "\(sampleRate) Hz, \(channels) channel\(channels == 1 ? "" : "s"), \(name)"
    }
}
