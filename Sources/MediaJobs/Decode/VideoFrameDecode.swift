import CFFmpeg
import MediaCore

/// Decodes the H.264 or H.265 track of a file to raw frames: every frame the decoder outputs, in display
/// order, none duplicated or dropped for timing (as a VTDecompressionSession hands them over), so the frame
/// count is the stream's own.
///
/// Frames the container hides (an edit list's pre-roll) are dropped by the decoder, as the ffmpeg tool
/// drops them. Before anything decodes, the frames' size is checked against the job's output allowance
/// (`DecodedSize`). Damaged packets are skipped with a warning; a file in which no frame decodes is
/// `invalid_input`.
struct VideoFrameDecode {
    let file: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let output: String
    let format: DecodeJob.Options.Format

    func run(_ context: JobContext) throws -> DecodeResult {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        guard codecID == AV_CODEC_ID_H264 || codecID == AV_CODEC_ID_HEVC else {
            throw MediaError(
                .unsupportedCodec,
                "the video track is \(String(cString: avcodec_get_name(codecID))); decode takes H.264 and H.265")
        }
        let rate = frameRate
        if !context.outputAllowance.isUnlimited {
            let pixelFormat =
                format == .nv12 ? AV_PIX_FMT_NV12 : AVPixelFormat(rawValue: stream.pointee.codecpar.pointee.format)
            try DecodedSize.video(
                of: file, stream: stream, pixelFormat: pixelFormat, frameRate: rate, y4m: format == .y4m,
                context: context)?.check(context)
        }
        let decoding = try TrackDecoding(file: file, stream: stream)
        let writer = try RawVideoWriter(path: output, layout: format == .y4m ? .y4m : .raw, frameRate: rate)
        var converter: FilterGraph? = nil
        let converted = Frame()
        try decoding.run(context) { frame in
            guard format == .nv12 else { return try writer.write(frame) }
            let graph = try converter ?? Self.nv12Converter(like: frame, timeBase: stream.pointee.time_base)
            converter = graph
            try graph.push(frame, to: "in")
            while try graph.pull(from: "out", into: converted) == .frame { try writer.write(converted) }
        }
        if let converter {
            try converter.finish("in")
            while try converter.pull(from: "out", into: converted) == .frame { try writer.write(converted) }
        }
        let damaged = decoding.damagedPackets
        try writer.finish()
        context.reportProgress(1)
        guard let shape = writer.shape else { throw MediaError(.internalError, "a finished frame file has no shape") }
        let warnings =
            damaged > 0 ? ["skipped \(damaged) damaged video packet(s); frames may be missing"] : []
        let pixelFormat = av_get_pix_fmt_name(shape.format).map { String(cString: $0) } ?? "unknown"
        return DecodeResult(
            outputs: [output], warnings: warnings, width: Int(shape.width), height: Int(shape.height),
            pixelFormat: pixelFormat, frameRate: "\(rate.num)/\(rate.den)", frames: writer.framesWritten,
            duration: Double(writer.framesWritten) * Double(rate.den) / Double(rate.num))
    }

    /// A graph turning frames shaped like `frame` into NV12 (`format=nv12`, which converts with
    /// libswscale as `ffmpeg -pix_fmt nv12` does).
    private static func nv12Converter(like frame: Frame, timeBase: AVRational) throws -> FilterGraph {
        try FilterGraph(
            "[in]format=nv12[out]",
            sources: [
                .video(
                    name: "in", width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat,
                    timeBase: timeBase, sampleAspectRatio: frame.pointer.pointee.sample_aspect_ratio)
            ],
            sinks: [.video("out")])
    }

    /// The stream's frame rate as libav guesses it for output (what the ffmpeg tool writes into a Y4M
    /// header), reduced; 25 fps when nothing states one, libav's default for raw H.264.
    private var frameRate: AVRational {
        let guessed = av_guess_frame_rate(file.context, stream, nil)
        guard guessed.num > 0, guessed.den > 0 else { return AVRational(num: 25, den: 1) }
        var numerator: Int32 = 0
        var denominator: Int32 = 0
        av_reduce(&numerator, &denominator, Int64(guessed.num), Int64(guessed.den), Int64(Int32.max))
        return AVRational(num: numerator, den: denominator)
    }
}
