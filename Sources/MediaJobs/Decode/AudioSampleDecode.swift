import CFFmpeg
import MediaCore

/// Decodes the AAC track of a file to WAV or raw PCM.
///
/// libavcodec's AAC decoder drops encoder priming itself (the mov demuxer marks it on the first packets).
/// libav 5.1 trims only the start of an edit list, not its end, so the ffmpeg tool of that version keeps
/// the last frame's padding (under 1024 samples); mediad stops at the track's edited duration instead, so
/// an M4A made from N samples decodes to exactly N samples.
///
/// The samples' size is checked against the job's output allowance before anything decodes
/// (`DecodedSize`). Damaged packets — typically a last ADTS frame cut short — are skipped and reported in
/// a warning, as a player would; a file in which no packet decodes fails with `invalid_input`.
struct AudioSampleDecode {
    let file: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let output: String
    let format: DecodeJob.Options.Format
    let sampleFormat: SampleFormat

    func run(_ context: JobContext) throws -> DecodeResult {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        guard codecID == AV_CODEC_ID_AAC else {
            throw MediaError(
                .unsupportedCodec, "the audio track is \(String(cString: avcodec_get_name(codecID))); decode takes AAC")
        }
        let presented = presentedSamples()
        try DecodedSize.audio(
            of: file, stream: stream, presentedSamples: presented, sampleFormat: sampleFormat, wav: format == .wav
        )?.check(context)
        let decoding = try TrackDecoding(file: file, stream: stream)
        var writer: AudioWriter? = nil
        var samples: Int64 = 0
        try decoding.run(context) { frame in
            if let presented {
                guard samples < presented else { return }
                frame.pointer.pointee.nb_samples = Int32(min(Int64(frame.sampleCount), presented - samples))
            }
            let sink = try writer ?? makeWriter(for: AudioFormat(of: frame))
            writer = sink
            try sink.write(frame)
            samples += Int64(frame.sampleCount)
        }
        let damaged = decoding.damagedPackets
        guard let writer, samples > 0 else {
            throw MediaError(
                .invalidInput, "no audio could be decoded from the AAC track (\(damaged) damaged packet(s))")
        }
        try writer.finish()
        context.reportProgress(1)
        let warnings =
            damaged > 0 ? ["skipped \(damaged) damaged AAC packet(s); the output may have a gap or end early"] : []
        return DecodeResult(
            outputs: [output], warnings: warnings, sampleRate: writer.format.sampleRate,
            channels: writer.format.channels, sampleFormat: sampleFormat, samples: samples,
            duration: Double(samples) / Double(writer.format.sampleRate))
    }

    /// Samples the MP4 track presents (its edit list's duration), or nil where the container does not say:
    /// ADTS durations are estimates and are never used to cut.
    private func presentedSamples() -> Int64? {
        let duration = stream.pointee.duration
        let rate = stream.pointee.codecpar.pointee.sample_rate
        guard file.container == .mp4, duration != mediad_nopts_value(), duration > 0, rate > 0 else { return nil }
        return av_rescale_q(duration, stream.pointee.time_base, AVRational(num: 1, den: rate))
    }

    private func makeWriter(for decoded: AudioFormat) throws -> AudioWriter {
        let muxer = format == .wav ? "wav" : sampleFormat.rawFormatName
        let file = try OutputFile(path: output, muxer: muxer)
        return try AudioWriter(output: file, encoder: try Encoder.pcm(sampleFormat, like: decoded))
    }
}
