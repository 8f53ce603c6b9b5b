import CFFmpeg

/// Owns a libswresample `SwrContext` converting audio between sample formats, rates and layouts.
///
/// Sample-format changes are exact where the target can hold the value (the same conversion ffmpeg's
/// tool applies, no dither); a rate change keeps a few samples of filter delay, released by `flush`.
public final class Resampler {
    private let swr: OpaquePointer
    public let input: AudioFormat
    public let output: AudioFormat

    public init(from input: AudioFormat, to output: AudioFormat) throws {
        self.input = input
        self.output = output
        var swr: OpaquePointer? = nil
        let allocated = output.withChannelLayout { outputLayout in
            input.withChannelLayout { inputLayout in
                swr_alloc_set_opts2(
                    &swr, outputLayout, output.sampleFormat, Int32(output.sampleRate), inputLayout, input.sampleFormat,
                    Int32(input.sampleRate), 0, nil)
            }
        }
        try LibavError.check(allocated, "configuring a resampler", code: .internalError)
        guard let swr else { throw MediaError(.internalError, "swr_alloc_set_opts2 returned no context") }
        self.swr = swr
        try LibavError.check(
            swr_init(swr), "cannot convert audio from \(input) to \(output)", code: .unsupportedFormat)
    }

    deinit {
        var pointer: OpaquePointer? = swr
        swr_free(&pointer)
    }

    /// Whether `frame` has the rate, channel count and sample format this resampler reads.
    public func accepts(_ frame: Frame) -> Bool {
        let format = AudioFormat(of: frame)
        return format.sampleFormat == input.sampleFormat && format.sampleRate == input.sampleRate
            && format.channels == input.channels
    }

    /// Converts `frame` into `converted` (replacing its contents); it may hold fewer or more samples.
    public func convert(_ frame: Frame, into converted: Frame) throws {
        try run(frame, into: converted)
    }

    /// Releases the samples still buffered (only a rate change buffers any) into `converted`.
    public func flush(into converted: Frame) throws {
        try run(nil, into: converted)
    }

    private func run(_ frame: Frame?, into converted: Frame) throws {
        converted.unref()
        try output.apply(to: converted)
        let inputCount = Int32(frame?.sampleCount ?? 0)
        let capacity = swr_get_out_samples(swr, inputCount)
        try LibavError.check(capacity, "sizing resampler output", code: .internalError)
        converted.pointer.pointee.nb_samples = max(capacity, 1)
        try LibavError.check(av_frame_get_buffer(converted.pointer, 0), "allocating audio", code: .internalError)
        let outData = UnsafeMutableRawPointer(converted.pointer.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        let inData = frame.map {
            UnsafeMutableRawPointer($0.pointer.pointee.extended_data!).assumingMemoryBound(
                to: UnsafePointer<UInt8>?.self)
        }
        let produced = swr_convert(swr, outData, max(capacity, 1), inData, inputCount)
        try LibavError.check(produced, "converting audio from \(input) to \(output)", code: .internalError)
        converted.pointer.pointee.nb_samples = produced
    }
}
