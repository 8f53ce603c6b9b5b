import CFFmpeg

/// Owns an `AVAudioFifo`: regroups decoded samples into the fixed frame size an encoder wants.
///
/// AAC takes exactly 1024 samples per channel per frame except the last one; decoders and raw readers
/// deliver whatever size they like, so samples pass through this queue on the way to the encoder.
public final class AudioFifo {
    private let fifo: OpaquePointer
    public let format: AudioFormat

    public init(format: AudioFormat, capacity: Int = 4096) throws {
        guard let fifo = av_audio_fifo_alloc(format.sampleFormat, Int32(format.channels), Int32(max(capacity, 1)))
        else { throw MediaError(.internalError, "av_audio_fifo_alloc failed") }
        self.fifo = fifo
        self.format = format
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Samples per channel waiting in the queue.
    public var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Appends all samples of `frame`, which must be in `format`.
    public func write(_ frame: Frame) throws {
        guard frame.sampleCount > 0 else { return }
        let data = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let written = av_audio_fifo_write(fifo, data, Int32(frame.sampleCount))
        try LibavError.check(written, "queueing audio", code: .internalError)
        guard Int(written) == frame.sampleCount else {
            throw MediaError(.internalError, "audio queue accepted too few samples")
        }
    }

    /// Takes up to `samples` samples into a freshly allocated `frame` timed at `pts`; returns how many.
    @discardableResult
    public func read(_ samples: Int, into frame: Frame, pts: Int64) throws -> Int {
        let wanted = min(samples, count)
        frame.unref()
        try format.apply(to: frame)
        frame.pointer.pointee.nb_samples = Int32(wanted)
        frame.pointer.pointee.pts = pts
        guard wanted > 0 else { return 0 }
        try LibavError.check(av_frame_get_buffer(frame.pointer, 0), "allocating audio", code: .internalError)
        let data = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let read = av_audio_fifo_read(fifo, data, Int32(wanted))
        try LibavError.check(read, "dequeueing audio", code: .internalError)
        return Int(read)
    }
}
