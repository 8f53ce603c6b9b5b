import CFFmpeg
import MediaCore

/// The input's video track decoded, turned upright, cut, re-timed, scaled and converted by libavfilter,
/// and encoded again.
final class VideoTranscoder: TrackPipeline {
    let inputIndex: Int
    let track: OutputTrack
    private let decoder: Decoder
    private let graph: FilterGraph
    private let encoder: Encoder
    private let codec: TranscodeJob.VideoCodec
    private let decoded = Frame()
    private let filtered = Frame()
    private let packet = Packet()
    private(set) var isComplete = false
    /// One frame's nominal duration in the input's time base, for frames that do not state theirs.
    private let nominalDuration: Int64
    /// One output frame's duration in the encoder's time base.
    private let encodedFrameDuration: Int64
    /// When the latest decoded frame ends, in the input's time base: where the filters' input ends.
    private var decodedEnd: Int64?

    /// Sets up the pipeline for `stream` of `input` and adds its stream to `output`.
    init(
        stream: UnsafeMutablePointer<AVStream>, input: InputFile, options: TranscodeJob.Options, window: TimeWindow,
        rotation: VideoRotation, output: OutputFile
    ) throws {
        inputIndex = Int(stream.pointee.index)
        codec = options.videoCodec
        decoder = try Decoder(stream: stream, of: input, threads: 0)
        let context = decoder.context.pointee
        guard context.width > 0, context.height > 0, context.pix_fmt != AV_PIX_FMT_NONE else {
            throw MediaError(.invalidInput, "the input's video track \(inputIndex) states no picture size or format")
        }
        let frameRate = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate].first { $0.num > 0 && $0.den > 0 }
        let source = FilterGraph.Source.video(
            name: "in", width: Int(context.width), height: Int(context.height), pixelFormat: context.pix_fmt,
            timeBase: stream.pointee.time_base, sampleAspectRatio: stream.pointee.sample_aspect_ratio,
            frameRate: frameRate)
        nominalDuration = frameRate.map { av_rescale_q(1, av_inv_q($0), stream.pointee.time_base) } ?? 1
        let filters = Self.filters(options: options, window: window, rotation: rotation)
        graph = try FilterGraph("[in]\(filters)[out]", sources: [source], sinks: [.video("out")], threads: 0)
        let shape = try graph.videoShape(of: "out")
        let globalHeader = output.context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        encoder = try VideoEncoderSetup(
            options: options, width: shape.width, height: shape.height, pixelFormat: shape.pixelFormat,
            sampleAspectRatio: shape.sampleAspectRatio, timeBase: try graph.timeBase(of: "out"),
            frameRate: try graph.frameRate(of: "out") ?? frameRate, globalHeader: globalHeader
        ).open()
        let rate = encoder.context.pointee.framerate
        encodedFrameDuration =
            rate.num > 0 && rate.den > 0 ? max(1, av_rescale_q(1, av_inv_q(rate), encoder.timeBase)) : 1
        let parameters = try encoder.parameters()
        track = try OutputTrack(output: output, parameters: parameters.pointer, timeBase: encoder.timeBase)
        if let matrix = rotation.keptMatrix { try rotation.attach(matrix, to: track.stream) }
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

    func send(_ packet: Packet) throws {
        guard !isComplete else { return }
        try decoder.send(packet)
        try drainDecoder()
    }

    func finish() throws {
        if !isComplete {
            try decoder.send(nil)
            try drainDecoder()
            try graph.finish("in", at: decodedEnd)
            try drainGraph()
        }
        try encoder.send(nil)
        try drainEncoder()
    }

    /// Passes decoded frames on until the decoder wants input or the filters reached the end cut.
    private func drainDecoder() throws {
        while !isComplete, try decoder.receive(into: decoded) {
            decoded.pts = decoded.bestEffortTimestamp
            if let pts = decoded.pts {
                let duration = decoded.pointer.pointee.pkt_duration
                decodedEnd = max(decodedEnd ?? pts, pts + (duration > 0 ? duration : nominalDuration))
            }
            try graph.push(decoded, to: "in")
            try drainGraph()
        }
    }

    private func drainGraph() throws {
        while true {
            switch try graph.pull(from: "out", into: filtered) {
            case .frame:
                // The decoder's picture types would force keyframes wherever the source had them.
                filtered.pictureType = AV_PICTURE_TYPE_NONE
                try encoder.send(filtered)
                try drainEncoder()
            case .needsInput:
                return
            case .end:
                isComplete = true
                return
            }
        }
    }

    /// Writes what the encoder has ready. libav 5.1's video encoders leave packet durations at 0, and the
    /// ISO muxers end the track (and its edit list) where the last packet starts, dropping the last
    /// frame; each packet gets one frame's duration at the output rate instead.
    private func drainEncoder() throws {
        while try encoder.receive(into: packet) {
            if packet.duration <= 0 { packet.duration = encodedFrameDuration }
            try track.write(packet)
        }
    }

    func report() -> TranscodeResult.Track {
        let context = encoder.context.pointee
        let rate = context.framerate
        return TranscodeResult.Track(
            kind: "video", codec: encoder.codecName, profile: nil, copied: false,
            frames: track.packets, duration: track.duration, bitrate: track.bitrate, width: Int(context.width),
            height: Int(context.height),
            frameRate: rate.num > 0 && rate.den > 0
                ? FrameRate(numerator: Int(rate.num), denominator: Int(rate.den)).description : nil)
    }
}
