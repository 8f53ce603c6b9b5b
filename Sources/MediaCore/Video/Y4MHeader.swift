import CFFmpeg

/// The stream header of a YUV4MPEG2 file, written as libavformat's `yuv4mpegpipe` muxer writes it, so
/// that a Y4M from mediad and one from `ffmpeg -f yuv4mpegpipe` agree byte for byte.
///
/// libav 5.1's muxer takes only `wrapped_avframe` packets, which carry a pointer to a frame rather than
/// its bytes; mediad writes the header and the `FRAME` markers itself around packed planes instead.
public struct Y4MHeader: Sendable, Equatable {
    /// The whole header line, `YUV4MPEG2 W… H… F… I… A… C…\n`.
    public let line: String

    /// The header for frames shaped like `frame` at `frameRate`; `unsupported_format` for a pixel format
    /// Y4M has no name for (RGB, packed or semi-planar YUV, alpha, big-endian samples).
    public init(for frame: Frame, frameRate: AVRational) throws {
        let picture = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: picture.format)
        guard let colorspace = Self.colorspace(format, chromaLocation: picture.chroma_location) else {
            let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown"
            throw MediaError(
                .unsupportedFormat, "Y4M has no name for \(name) frames; decode them with format=yuv instead")
        }
        var rateNumerator: Int32 = 0
        var rateDenominator: Int32 = 0
        av_reduce(
            &rateNumerator, &rateDenominator, Int64(frameRate.num), Int64(frameRate.den), Int64(Int32.max))
        let interlacing =
            picture.interlaced_frame == 0 ? "p" : picture.top_field_first != 0 ? "t" : "b"
        let aspect = picture.sample_aspect_ratio
        let aspectText = aspect.num == 0 ? "0:0" : "\(aspect.num):\(aspect.den)"
        let range =
            switch picture.color_range {
            case AVCOL_RANGE_MPEG: " XCOLORRANGE=LIMITED"
            case AVCOL_RANGE_JPEG: " XCOLORRANGE=FULL"
            default: ""
            }
        line =
            "YUV4MPEG2 W\(picture.width) H\(picture.height) F\(rateNumerator):\(rateDenominator) I\(interlacing)"
            + " A\(aspectText)\(colorspace)\(range)\n"
    }

    /// Marks the start of each frame's planes.
    public static let frameMarker = Array("FRAME\n".utf8)

    /// The ` C…` (and ` XYSCSS=…`) fields for planar YUV or grey `format`, or nil when Y4M cannot say it.
    static func colorspace(_ format: AVPixelFormat, chromaLocation: AVChromaLocation) -> String? {
        guard let descriptor = av_pix_fmt_desc_get(format)?.pointee else { return nil }
        let flags = descriptor.flags
        let unsupported = UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_BE)
        guard flags & unsupported == 0, flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 || descriptor.nb_components == 1,
            descriptor.nb_components == 1 || descriptor.nb_components == 3
        else { return nil }
        let depth = Int(descriptor.comp.0.depth)
        guard depth == 8 || (9...16).contains(depth) else { return nil }
        if descriptor.nb_components == 1 { return depth == 8 ? " Cmono" : " Cmono\(depth)" }
        // Semi-planar formats (NV12) keep both chroma samples in one plane.
        guard descriptor.comp.1.plane != descriptor.comp.2.plane else { return nil }
        let sampling: String
        switch (descriptor.log2_chroma_w, descriptor.log2_chroma_h) {
        case (1, 1): sampling = "420"
        case (1, 0): sampling = "422"
        case (0, 0): sampling = "444"
        case (2, 0): sampling = "411"
        default: return nil
        }
        var tag = sampling
        if depth != 8 {
            tag += "p\(depth)"
        } else if sampling == "420" && format == AV_PIX_FMT_YUVJ420P {
            // libav's muxer names full-range 4:2:0 after JPEG, wherever its chroma sits.
            tag += "jpeg"
        } else if sampling == "420" {
            switch chromaLocation {
            case AVCHROMA_LOC_TOPLEFT: tag += "paldv"
            case AVCHROMA_LOC_LEFT: tag += "mpeg2"
            default: tag += "jpeg"
            }
        }
        return " C\(tag) XYSCSS=\(tag.uppercased())"
    }
}
