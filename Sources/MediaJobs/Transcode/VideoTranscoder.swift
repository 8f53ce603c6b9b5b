import CFFmpeg
import MediaCore

/// The input's video track decoded, turned upright, cut, re-timed, scaled and converted by libavfilter,
/// and encoded again.
final class VideoTranscoder: TrackPipeline {
    let inputIndex: Int
    private let chain: CodingChain

    /// Sets up the pipeline for `stream` of `input` and adds its stream to `output`.
    init(
        stream: UnsafeMutablePointer<AVStream>, input: InputFile, options: TranscodeJob.Options, window: TimeWindow,
        rotation: VideoRotation, output: OutputFile
    ) throws {
        inputIndex = Int(stream.pointee.index)
        let decoder = try Decoder(stream: stream, of: input, threads: 0)
        let context = decoder.context.pointee
        guard context.width > 0, context.height > 0, context.pix_fmt != AV_PIX_FMT_NONE else {
            throw MediaError(.invalidInput, "the input's video track \(inputIndex) states no picture size or format")
        }
        let frameRate = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate].first { $0.num > 0 && $0.den > 0 }
        let source = FilterGraph.Source.video(
            name: "in", width: Int(context.width), height: Int(context.height), pixelFormat: context.pix_fmt,
            timeBase: stream.pointee.time_base, sampleAspectRatio: stream.pointee.sample_aspect_ratio,
            frameRate: frameRate)
        let filters = Self.filters(options: options, window: window, rotation: rotation)
        let graph = try FilterGraph("[in]\(filters)[out]", sources: [source], sinks: [.video("out")], threads: 0)
        let globalHeader = output.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        let encoder = try VideoEncoderSetup(
            options: options, sink: "out", of: graph, frameRate: try graph.frameRate(of: "out") ?? frameRate,
            globalHeader: globalHeader
        ).open()
        let parameters = try encoder.parameters()
        let track = try OutputTrack(output: output, parameters: parameters.pointer, timeBase: encoder.timeBase)
        if let matrix = rotation.keptMatrix { try rotation.attach(matrix, to: track.stream) }
        chain = try CodingChain(
            decoder: decoder, graph: graph, encoder: encoder, track: track,
            nominalFrameDuration: frameRate?.frameDuration(in: stream.pointee.time_base) ?? 1,
            nominalPacketDuration: encoder.context.pointee.framerate.frameDuration(in: encoder.timeBase))
    }

    /// The filter chain: cut and re-time, turn upright, constant rate, size, pixel format.
    static func filters(options: TranscodeJob.Options, window: TimeWindow, rotation: VideoRotation) -> String {
        var chain = window.filters(prefix: "")
        if options.rotate == .auto { chain += rotation.uprightFilters }
        if let fps = options.fps { chain.append("fps=\(fps.numerator)/\(fps.denominator)") }
        switch (options.width, options.height) {
        case (let width?, let height?): chain.append("scale=\(width):\(height)")
        case (let width?, nil): chain.append("scale=\(width):-2")
        case (nil, let height?): chain.append("scale=-2:\(height)")
        case (nil, nil): break
        }
        chain.append("format=\(options.effectivePixelFormat.rawValue)")
        return chain.joined(separator: ",")
    }

    var track: OutputTrack { chain.track }

    var isComplete: Bool { chain.isComplete }

    func send(_ packet: Packet) throws { try chain.send(packet) }

    func finish() throws { try chain.finish() }

    func report() -> TranscodeResult.Track { chain.encoding.videoReport() }
}
