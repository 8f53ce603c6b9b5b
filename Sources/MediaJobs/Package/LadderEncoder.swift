import CFFmpeg
import MediaCore

/// The source's video decoded once and encoded as every rendition of a ladder: one decoder, one filter
/// graph that re-times and turns the picture upright and then `split`s it into a `scale` per rendition,
/// and one x264 encoder per rendition writing its own track of the ladder's intermediate file.
///
/// Every rendition gets the same frames and an IDR frame (a closed GOP) forced on the first frame at or
/// after each multiple of the segment duration, with no scene-cut keyframes between, so the renditions'
/// keyframes fall at the same times and the segments cut there line up for players to switch between.
final class LadderEncoder {
    /// One rendition's encoder and the track it writes.
    private struct Output {
        let sink: String
        let encoder: Encoder
        let track: OutputTrack
        let sinkTimeBase: AVRational

        /// The duration of a packet the encoder leaves without one: a frame at the encoder's frame rate.
        var packetDuration: Int64 { encoder.context.pointee.framerate.frameDuration(in: encoder.timeBase) }
    }

    let inputIndex: Int
    private let decoder: Decoder
    private let graph: FilterGraph
    private let outputs: [Output]
    private let segmentDuration: Double
    /// Per rendition, the number of the segment boundary its next keyframe is due at (boundary n is at
    /// n × the segment duration).
    private var dueBoundaries: [Int]
    /// When the latest decoded frame ends, in the input's time base: where the filters' input ends.
    private var decodedEnd: Int64?
    private let nominalFrameDuration: Int64
    private let decoded = Frame()
    private let filtered = Frame()
    private let packet = Packet()

    /// Half a millisecond: a frame that the time bases' rounding puts just before a boundary still opens
    /// the segment there.
    private static let tolerance = 0.0005

    init(
        plan: LadderPlan, input: InputFile, origin: Double, preset: TranscodeJob.Preset, segmentDuration: Double,
        output: OutputFile
    ) throws {
        let stream = plan.video
        inputIndex = Int(stream.pointee.index)
        self.segmentDuration = segmentDuration
        decoder = try Decoder(stream: stream, of: input, threads: 0)
        let context = decoder.context.pointee
        guard context.width > 0, context.height > 0, context.pix_fmt != AV_PIX_FMT_NONE else {
            throw MediaError(.invalidInput, "the input's video track \(inputIndex) states no picture size or format")
        }
        let frameRate = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate].first { $0.num > 0 && $0.den > 0 }
        nominalFrameDuration = frameRate?.frameDuration(in: stream.pointee.time_base) ?? 1
        let source = FilterGraph.Source.video(
            name: "in", width: Int(context.width), height: Int(context.height), pixelFormat: context.pix_fmt,
            timeBase: stream.pointee.time_base, sampleAspectRatio: stream.pointee.sample_aspect_ratio,
            frameRate: frameRate)
        let shared =
            TimeWindow(origin: origin).filters(prefix: "")
            + VideoRotation(stream: stream, keep: false).uprightFilters
        let labels = plan.renditions.indices.map { "r\($0)" }
        var description = "[in]" + (shared + ["split=\(labels.count)"]).joined(separator: ",")
        description += labels.map { "[\($0)]" }.joined()
        for (label, rendition) in zip(labels, plan.renditions) {
            description += ";[\(label)]scale=-2:\(rendition.height),format=yuv420p[\(label)out]"
        }
        let graph = try FilterGraph(
            description, sources: [source], sinks: labels.map { .video("\($0)out") }, threads: 0)
        self.graph = graph
        outputs = try zip(labels, plan.renditions).map { label, rendition in
            try Self.output(
                sink: "\(label)out", rendition: rendition, graph: graph, frameRate: frameRate, preset: preset,
                segmentDuration: segmentDuration, file: output)
        }
        dueBoundaries = outputs.map { _ in 0 }
    }

    /// Opens the encoder of one rendition: its rung's average and peak bit rates and profile, a GOP as long
    /// as a segment, no scene-cut keyframes.
    private static func output(
        sink: String, rendition: LadderPlan.Rendition, graph: FilterGraph, frameRate: AVRational?,
        preset: TranscodeJob.Preset, segmentDuration: Double, file: OutputFile
    ) throws -> Output {
        let rate = try graph.frameRate(of: sink) ?? frameRate
        let framesPerSegment = rate.map { Int((segmentDuration * av_q2d($0)).rounded()) } ?? 250
        let options = try TranscodeJob.Options(
            format: .mp4, videoCodec: .h264, videoBitrate: rendition.rung.bitRate,
            maxBitrate: rendition.rung.maxBitRate, preset: preset, profile: rendition.rung.profile,
            gop: min(max(1, framesPerSegment), TranscodeJob.Options.gops.upperBound))
        let encoder = try VideoEncoderSetup(
            options: options, sink: sink, of: graph, frameRate: rate, globalHeader: true
        ).open()
        let parameters = try encoder.parameters()
        let track = try OutputTrack(output: file, parameters: parameters.pointer, timeBase: encoder.timeBase)
        return Output(sink: sink, encoder: encoder, track: track, sinkTimeBase: try graph.timeBase(of: sink))
    }

    func send(_ packet: Packet) throws {
        try decoder.send(packet)
        try drainDecoder()
    }

    /// Flushes the decoder, the filters (telling them where the last frame ends) and every encoder.
    func finish() throws {
        try decoder.send(nil)
        try drainDecoder()
        try graph.finish("in", at: decodedEnd)
        try drainGraph()
        for output in outputs {
            try output.encoder.send(nil)
            try drainEncoder(output)
        }
    }

    private func drainDecoder() throws {
        while try decoder.receive(into: decoded) {
            decoded.pts = decoded.bestEffortTimestamp
            if let pts = decoded.pts {
                let duration = decoded.pointer.pointee.pkt_duration
                decodedEnd = max(decodedEnd ?? pts, pts + (duration > 0 ? duration : nominalFrameDuration))
            }
            try graph.push(decoded, to: "in")
            try drainGraph()
        }
    }

    /// Takes every frame the sinks hold; the split gives each sink the same frames, in the same order.
    private func drainGraph() throws {
        for position in outputs.indices {
            while case .frame = try graph.pull(from: outputs[position].sink, into: filtered) {
                try encode(filtered, position)
            }
        }
    }

    /// Encodes one frame of a rendition, forcing an IDR frame on the first frame at or past the next
    /// multiple of the segment duration (the same frame in every rendition, since all get the same times).
    private func encode(_ frame: Frame, _ position: Int) throws {
        let output = outputs[position]
        let seconds = frame.pts.map { Double($0) * av_q2d(output.sinkTimeBase) } ?? 0
        // The last boundary at or before the frame; the tolerance keeps a frame that rounding puts a hair
        // early at its boundary.
        let boundary = Int(((seconds + Self.tolerance) / segmentDuration).rounded(.down))
        // A decoder's picture types would force keyframes wherever the source had them.
        frame.pictureType = AV_PICTURE_TYPE_NONE
        if boundary >= dueBoundaries[position] {
            frame.pictureType = AV_PICTURE_TYPE_I
            dueBoundaries[position] = boundary + 1
        }
        if let pts = frame.pts { frame.pts = av_rescale_q(pts, output.sinkTimeBase, output.encoder.timeBase) }
        try output.encoder.send(frame)
        try drainEncoder(output)
    }

    private func drainEncoder(_ output: Output) throws {
        while try output.encoder.receive(into: packet) {
            if packet.duration <= 0 { packet.duration = output.packetDuration }
            try output.track.write(packet)
        }
    }
}
