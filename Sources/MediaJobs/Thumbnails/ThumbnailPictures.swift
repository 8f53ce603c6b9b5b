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
        let timeBase = seeker.stream.pointee.time_base
        var frames = PointFrames(target: target, window: window) { try self.makeGraph(for: $0, timeBase: timeBase) }
        // A seek that lands past the last keyframe before the end finds no frame: step back and read again.
        repeat {
            try frames.read(from: seeker)
        } while try frames.isEmpty && seeker.retreat()
        guard let graph = try frames.finishedGraph() else { return nil }
        let picture = Frame()
        guard try graph.pull(from: "out", into: picture) == .frame else {
            throw MediaError(.internalError, "the picture filter graph gave no frame")
        }
        lastPicture = picture
        return Chosen(picture: picture, shownAt: picture.pts ?? target)
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
