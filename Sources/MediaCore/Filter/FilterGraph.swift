import CFFmpeg

/// Owns an `AVFilterGraph` built from a libavfilter description, with named `buffer`/`abuffer` sources
/// that frames are pushed into and named `buffersink`/`abuffersink` sinks that frames are pulled from.
///
/// The description is libavfilter's own syntax with the sources and sinks as link labels, e.g.
/// `[video]scale=320:-2,format=yuv420p[scaled]` for a source called `video` and a sink called `scaled`.
/// Frames go in with `push(_:to:)`, the end of a source is signalled with `finish(_:)`, and whatever the
/// graph has ready comes out of `pull(from:into:)`. The filters are libav's; this type only wires them.
public final class FilterGraph {
    /// What one source produces: the shape of the frames that will be pushed into it.
    public enum Source: Sendable {
        /// Video frames of this size, pixel format and time base; `frameRate` when known, which filters
        /// such as `fps` and encoders read downstream.
        case video(
            name: String, width: Int, height: Int, pixelFormat: AVPixelFormat, timeBase: AVRational,
            sampleAspectRatio: AVRational = AVRational(num: 0, den: 1), frameRate: AVRational? = nil)
        /// Audio frames of this format, timed in `timeBase`.
        case audio(name: String, format: AudioFormat, timeBase: AVRational)

        /// The link label the description refers to.
        public var name: String {
            switch self {
            case .video(let name, _, _, _, _, _, _), .audio(let name, _, _): name
            }
        }
    }

    /// One sink: a link label of the description and whether it carries video or audio.
    public struct Sink: Sendable {
        public var name: String
        public var isVideo: Bool

        public static func video(_ name: String) -> Sink { Sink(name: name, isVideo: true) }
        public static func audio(_ name: String) -> Sink { Sink(name: name, isVideo: false) }
    }

    /// What `pull(from:into:)` found.
    public enum Pulled: Equatable, Sendable {
        /// A frame was written into the frame passed in.
        case frame
        /// The sink has nothing now; push more input (or finish the sources) first.
        case needsInput
        /// The sink is drained: every source has finished and every frame has come out.
        case end
    }

    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private var sources: [String: UnsafeMutablePointer<AVFilterContext>] = [:]
    private var sinks: [String: UnsafeMutablePointer<AVFilterContext>] = [:]

    /// Builds and configures the graph. The description must use every source and sink label exactly
    /// once; a description libavfilter refuses is an `internal_error`, since descriptions are built by
    /// mediad, never taken from a request.
    public init(_ description: String, sources: [Source], sinks: [Sink], threads: Int = 1) throws {
        guard let graph = avfilter_graph_alloc() else {
            throw MediaError(.internalError, "avfilter_graph_alloc failed")
        }
        self.graph = graph
        graph.pointee.nb_threads = Int32(threads)
        LibavLog.clearLastError()
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = nil
        var inputs: UnsafeMutablePointer<AVFilterInOut>? = nil
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
        }
        for source in sources {
            let context = try createFilter(source.filterName, named: source.name, arguments: source.arguments)
            self.sources[source.name] = context
            outputs = try Self.link(source.name, context, after: outputs)
        }
        for sink in sinks {
            let context = try createFilter(
                sink.isVideo ? "buffersink" : "abuffersink", named: sink.name, arguments: nil)
            self.sinks[sink.name] = context
            inputs = try Self.link(sink.name, context, after: inputs)
        }
        try LibavError.check(
            avfilter_graph_parse_ptr(graph, description, &inputs, &outputs, nil),
            "building the filter graph '\(description)'",
            code: .internalError)
        try LibavError.check(
            avfilter_graph_config(graph, nil), "configuring the filter graph '\(description)'", code: .internalError)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFilterGraph>? = graph
        avfilter_graph_free(&pointer)
    }

    /// Pushes one frame into `source`. The graph takes its own reference; `frame` is left as it was.
    public func push(_ frame: Frame, to source: String) throws {
        try LibavError.check(
            av_buffersrc_add_frame_flags(try context(of: source), frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
            "filtering a frame", code: .internalError)
    }

    /// Tells `source` that no more frames come, so the filters behind it flush what they hold. `end` is
    /// when the last frame ends, in the source's time base: filters that fill time (`fps`) then cover the
    /// last frame's whole duration, not just its start; without it the stream ends where that frame starts.
    public func finish(_ source: String, at end: Int64? = nil) throws {
        let context = try context(of: source)
        let result =
            if let end {
                av_buffersrc_close(context, end, UInt32(AV_BUFFERSRC_FLAG_PUSH))
            } else {
                av_buffersrc_add_frame_flags(context, nil, 0)
            }
        try LibavError.check(result, "flushing the filter graph", code: .internalError)
    }

    /// Takes the next frame out of `sink` into `frame` (unreferenced first).
    public func pull(from sink: String, into frame: Frame) throws -> Pulled {
        frame.unref()
        let result = av_buffersink_get_frame(try context(ofSink: sink), frame.pointer)
        if result == mediad_averror_eagain() { return .needsInput }
        if result == mediad_averror_eof() { return .end }
        try LibavError.check(result, "filtering", code: .internalError)
        return .frame
    }

    /// Makes the audio sink `sink` deliver frames of exactly `samples` samples (the last may be shorter),
    /// as encoders with a fixed frame size (AAC, Opus, MP3) need.
    public func setFrameSize(_ samples: Int, of sink: String) throws {
        av_buffersink_set_frame_size(try context(ofSink: sink), UInt32(samples))
    }

    /// The time base of the frames `sink` delivers.
    public func timeBase(of sink: String) throws -> AVRational {
        av_buffersink_get_time_base(try context(ofSink: sink))
    }

    /// The frame rate the graph states for `sink`, or nil when it does not know one (0/0 or 1/0).
    public func frameRate(of sink: String) throws -> AVRational? {
        let rate = av_buffersink_get_frame_rate(try context(ofSink: sink))
        return rate.num > 0 && rate.den > 0 ? rate : nil
    }

    /// The size, pixel format and sample aspect ratio of a video sink's pictures.
    public typealias VideoShape = (width: Int, height: Int, pixelFormat: AVPixelFormat, sampleAspectRatio: AVRational)

    /// The size, pixel format and sample aspect ratio of the video `sink` delivers.
    public func videoShape(of sink: String) throws -> VideoShape {
        let context = try context(ofSink: sink)
        return (
            Int(av_buffersink_get_w(context)), Int(av_buffersink_get_h(context)),
            AVPixelFormat(rawValue: av_buffersink_get_format(context)), av_buffersink_get_sample_aspect_ratio(context)
        )
    }

    /// The format of the audio `sink` delivers.
    public func audioFormat(of sink: String) throws -> AudioFormat {
        let context = try context(ofSink: sink)
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        try LibavError.check(
            av_buffersink_get_ch_layout(context, &layout), "reading the filter graph's channel layout",
            code: .internalError)
        return AudioFormat(
            sampleFormat: AVSampleFormat(rawValue: av_buffersink_get_format(context)),
            sampleRate: Int(av_buffersink_get_sample_rate(context)), channels: Int(layout.nb_channels),
            channelMask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0)
    }

    private func context(of source: String) throws -> UnsafeMutablePointer<AVFilterContext> {
        guard let context = sources[source] else { throw MediaError(.internalError, "no filter source '\(source)'") }
        return context
    }

    private func context(ofSink sink: String) throws -> UnsafeMutablePointer<AVFilterContext> {
        guard let context = sinks[sink] else { throw MediaError(.internalError, "no filter sink '\(sink)'") }
        return context
    }

    private func createFilter(_ filter: String, named name: String, arguments: String?) throws
        -> UnsafeMutablePointer<AVFilterContext>
    {
        var context: UnsafeMutablePointer<AVFilterContext>? = nil
        try LibavError.check(
            avfilter_graph_create_filter(&context, avfilter_get_by_name(filter), name, arguments, nil, graph),
            "creating the \(filter) filter '\(name)'", code: .internalError)
        return context!
    }

    /// Prepends an entry labelled `name` for `context`'s only pad to a list of open links.
    private static func link(
        _ name: String, _ context: UnsafeMutablePointer<AVFilterContext>,
        after list: UnsafeMutablePointer<AVFilterInOut>?
    ) throws -> UnsafeMutablePointer<AVFilterInOut> {
        guard let entry = avfilter_inout_alloc() else {
            throw MediaError(.internalError, "avfilter_inout_alloc failed")
        }
        entry.pointee.name = av_strdup(name)
        entry.pointee.filter_ctx = context
        entry.pointee.pad_idx = 0
        entry.pointee.next = list
        return entry
    }
}

extension FilterGraph.Source {
    var filterName: String {
        if case .video = self { return "buffer" }
        return "abuffer"
    }

    /// The `buffer`/`abuffer` arguments that describe the frames this source takes.
    var arguments: String {
        switch self {
        case .video(_, let width, let height, let pixelFormat, let timeBase, let aspect, let frameRate):
            var text =
                "video_size=\(width)x\(height):pix_fmt=\(pixelFormat.rawValue):time_base=\(timeBase.num)/\(timeBase.den)"
                + ":pixel_aspect=\(max(aspect.num, 0))/\(max(aspect.den, 1))"
            if let frameRate, frameRate.num > 0, frameRate.den > 0 {
                text += ":frame_rate=\(frameRate.num)/\(frameRate.den)"
            }
            return text
        case .audio(_, let format, let timeBase):
            let sampleFormat = av_get_sample_fmt_name(format.sampleFormat).map { String(cString: $0) } ?? "fltp"
            return "time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(format.sampleRate)"
                + ":sample_fmt=\(sampleFormat):channel_layout=\(format.channelLayoutName)"
        }
    }
}
