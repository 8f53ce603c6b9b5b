import CFFmpeg
import MediaCore

/// Turns the frames near a point into one picture ready for its encoder: the frame itself (exact mode) or
/// the most representative of a window of frames (scene mode), turned upright, scaled and converted by a
/// libavfilter graph built for the point.
final class ThumbnailPictures {
    /// A picture and when its frame is shown, in the stream's time base.
    struct Chosen {
        var picture: Frame
        var shownAt: Int64
    }

    let options: ThumbnailsJob.Options
    /// Clockwise degrees the display matrix turns the picture.
    let rotation: Int
    private var encoder: ImageEncoder?

    init(options: ThumbnailsJob.Options, rotation: Int) {
        self.options = options
        self.rotation = rotation
    }

    /// The size of the pictures made so far.
    var size: (width: Int, height: Int)? { lastPicture.map { ($0.width, $0.height) } }
    private var lastPicture: Frame?

    /// The picture for `target` (stream time base): from the first frame shown at or after it, or the last
    /// frame of the track when the track ends before it. Reads up to `window` frames from `seeker`.
    func picture(from seeker: FrameSeeker, at target: Int64, window: Int) throws -> Chosen? {
        var latest = Frame()
        var before: Frame? = nil
        var graph: FilterGraph? = nil
        var pushed = 0
        // A seek that lands past the last keyframe before the end finds no frame: step back and read again.
        repeat {
            try read(
                from: seeker, at: target, window: window, latest: &latest, before: &before, graph: &graph,
                pushed: &pushed)
        } while try graph == nil && before == nil && seeker.retreat()
        if graph == nil, let before {
            let filters = try makeGraph(for: before, timeBase: seeker.stream.pointee.time_base)
            graph = filters
            before.pts = before.bestEffortTimestamp
            try filters.push(before, to: "in")
        }
        guard let graph else { return nil }
        try graph.finish("in")
        let picture = Frame()
        guard try graph.pull(from: "out", into: picture) == .frame else {
            throw MediaError(.internalError, "the picture filter graph gave no frame")
        }
        lastPicture = picture
        return Chosen(picture: picture, shownAt: picture.pts ?? target)
    }

    /// Reads frames up to the target (keeping the last one before it in `before`) and pushes `window`
    /// frames from the target on into `graph`, made for the first of them.
    private func read(
        from seeker: FrameSeeker, at target: Int64, window: Int, latest: inout Frame, before: inout Frame?,
        graph: inout FilterGraph?, pushed: inout Int
    ) throws {
        while pushed < window, try seeker.next(into: latest) {
            if pushed == 0, let shown = latest.bestEffortTimestamp, shown < target {
                let spare = before ?? Frame()
                before = latest
                latest = spare
                continue
            }
            // The seek landed on a keyframe shown after the point: step back one and decode up to it.
            if pushed == 0, before == nil, seeker.framesSinceSeek == 1,
                latest.bestEffortTimestamp.map({ $0 > target }) == true, try seeker.retreat()
            {
                continue
            }
            let filters = try graph ?? makeGraph(for: latest, timeBase: seeker.stream.pointee.time_base)
            graph = filters
            // The graph keeps the frame's time: the decoder's best guess, which raw streams need.
            latest.pts = latest.bestEffortTimestamp
            try filters.push(latest, to: "in")
            pushed += 1
        }
    }

    /// The encoder for pictures of `picture`'s size, made again when the size changes (a stream that
    /// changes resolution, with no width or height asked for).
    func encoder(for picture: Frame) throws -> ImageEncoder {
        if let encoder, encoder.width == picture.width, encoder.height == picture.height { return encoder }
        let made = try ImageEncoder(options.format, width: picture.width, height: picture.height)
        encoder = made
        return made
    }

    private func makeGraph(for frame: Frame, timeBase: AVRational) throws -> FilterGraph {
        try FilterGraph(
            "[in]" + filters.joined(separator: ",") + "[out]",
            sources: [
                .video(
                    name: "in", width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat,
                    timeBase: timeBase, sampleAspectRatio: frame.pointer.pointee.sample_aspect_ratio)
            ],
            sinks: [.video("out")])
    }

    /// Upright (as ffmpeg's autorotate turns it), the scene filter, the size, the encoder's pixel format.
    private var filters: [String] {
        var chain: [String] = []
        switch rotation {
        case 90: chain.append("transpose=clock")
        case 180: chain += ["hflip", "vflip"]
        case 270: chain.append("transpose=cclock")
        default: break
        }
        if options.mode == .scene { chain.append("thumbnail=n=\(ThumbnailsJob.sceneFrames)") }
        if options.width != nil || options.height != nil {
            chain.append("scale=\(options.width ?? -2):\(options.height ?? -2)")
        }
        let format = av_get_pix_fmt_name(options.format.pixelFormat).map { String(cString: $0) } ?? "yuv420p"
        chain.append("format=\(format)")
        return chain
    }
}
