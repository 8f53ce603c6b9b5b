import CFFmpeg
import Foundation
import MediaCore

/// Audio → peaks JSON in audiowaveform's version-2 format and a PNG of the waveform.
///
/// The first audio track is decoded at its own rate and converted to interleaved 16-bit samples (the
/// conversion `ffmpeg -f s16le` makes), from which `WaveformPeaks` takes its min/max pairs; the picture
/// is drawn from those pairs.
public struct WaveformJob: Sendable {
    /// Every container mediad reads that carries audio.
    public static let acceptedInputs: [InputContainer] = [.mp4, .matroska, .mpegts, .flv, .asf, .adts, .wav]
    public static let peaksFileName = "waveform.json"
    public static let pictureFileName = "waveform.png"

    var input: String
    /// Directory the files are written to; created if missing.
    var outputDirectory: String
    var options: Options

    func run(_ context: JobContext) throws -> WaveformResult {
        try options.validate()
        let file = try Self.openInput(input, damaged: options.damaged)
        guard let stream = file.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO })
        else { throw MediaError(.missingStream, "the \(file.container.displayName) input has no audio track") }
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let decoding = try TrackDecoding(file: file, stream: stream)
        var accumulator: WaveformPeakAccumulator? = nil
        var resampler: Resampler? = nil
        let converted = Frame()
        try decoding.run(context, progress: { $0 * 0.95 }) { frame in
            let format = AudioFormat(of: frame)
            let converter =
                try resampler ?? Resampler(from: format, to: format.with(sampleFormat: AV_SAMPLE_FMT_S16))
            resampler = converter
            guard converter.accepts(frame) else {
                throw MediaError(
                    .invalidInput, "the audio changes format mid-stream, from \(converter.input) to \(format)")
            }
            try converter.convert(frame, into: converted)
            if accumulator == nil {
                accumulator = WaveformPeakAccumulator(
                    inputChannels: format.channels, split: options.splitChannels, sampleRate: format.sampleRate,
                    samplesPerPixel: try options.samplesPerPixel(at: format.sampleRate), bits: options.bits)
            }
            let count = converted.sampleCount * format.channels
            converted.pointer.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: count) {
                accumulator!.add(UnsafeBufferPointer(start: $0, count: count))
            }
        }
        guard var accumulator, accumulator.frames > 0 else {
            if let nothing = file.nothingRead(of: [Int(stream.pointee.index)]) { throw nothing }
            throw MediaError(
                .invalidInput, "no audio could be decoded (\(decoding.damagedPackets) damaged packet(s))")
        }
        accumulator.finish()
        let peaks = accumulator.peaks
        try OutputDirectory.create(outputDirectory)
        let peaksPath = outputDirectory + "/" + Self.peaksFileName
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(try encoder.encode(peaks), to: peaksPath)
        let picture = WaveformPicture(
            peaks: peaks, width: options.width, height: options.height, background: options.backgroundColor,
            foreground: options.waveformColor)
        let picturePath = outputDirectory + "/" + Self.pictureFileName
        try ImageEncoder(.png, width: options.width, height: options.height, pixelFormat: AV_PIX_FMT_RGBA)
            .write(try picture.frame(), to: picturePath)
        context.reportProgress(1)
        let damaged = decoding.damagedPackets
        let duration = Double(accumulator.frames) / Double(peaks.sampleRate)
        return WaveformResult(
            outputs: [peaksPath, picturePath],
            warnings: file.damageWarnings(
                streams: [Int(stream.pointee.index)], readToEnd: true, outputDuration: duration)
                + (damaged > 0 ? ["skipped \(damaged) damaged audio packet(s); the waveform may have a gap"] : []),
            sampleRate: peaks.sampleRate, channels: peaks.channels, samplesPerPixel: peaks.samplesPerPixel,
            bits: peaks.bits, length: peaks.length, samples: accumulator.frames,
            duration: duration)
    }
}
