import CFFmpeg
import Foundation

/// Encodes still pictures (JPEG, PNG, WebP) of one size, one frame to one file each, with a libav encoder:
/// these encoders are intra-only and hand back a packet for every frame, so one serves a whole series of
/// thumbnails.
public final class ImageEncoder {
    /// The picture formats mediad writes.
    public enum Format: String, Sendable, Codable, CaseIterable {
        case jpeg, png, webp

        /// The file extension: `jpg`, `png`, `webp`.
        public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

        /// The pixel format the encoder takes frames in, by default: full-range 4:2:0 for JPEG (libav's
        /// `mjpeg` encoder takes only the `yuvj` formats), RGB for PNG, 4:2:0 for WebP.
        public var pixelFormat: AVPixelFormat {
            switch self {
            case .jpeg: AV_PIX_FMT_YUVJ420P
            case .png: AV_PIX_FMT_RGB24
            case .webp: AV_PIX_FMT_YUV420P
            }
        }

        var encoderName: String {
            switch self {
            case .jpeg: "mjpeg"
            case .png: "png"
            case .webp: "libwebp"
            }
        }

        /// The sizes the encoder takes: libav's `mjpeg` refuses sides over 65500, libwebp over 16383; PNG
        /// has only libav's own bound on a picture.
        public var sizeLimit: PictureSizeLimit {
            switch self {
            case .jpeg: PictureSizeLimit("jpeg (mjpeg)", widths: 1...65500, heights: 1...65500)
            case .png: PictureSizeLimit("png", widths: 1...Int(Int32.max), heights: 1...Int(Int32.max))
            case .webp: PictureSizeLimit("webp (libwebp)", widths: 1...16383, heights: 1...16383)
            }
        }
    }

    public let format: Format
    public let width: Int
    public let height: Int
    private let encoder: Encoder
    private let packet = Packet()
    /// The time the next picture is sent with: a still's own time means nothing to its encoder, but some
    /// (`mjpeg`) refuse a time that does not increase, which two frames of a video can share.
    private var nextPicture: Int64 = 0

    /// An encoder for `width`×`height` frames in `pixelFormat` (the format's own by default). JPEG is
    /// written at quality 2 on libav's 2–31 scale, WebP at libwebp's quality 80: thumbnails meant to be
    /// looked at, not archived. A size the format cannot take is `invalid_option`, `what` naming the
    /// picture in the message.
    public init(
        _ format: Format, width: Int, height: Int, pixelFormat: AVPixelFormat? = nil, what: String = "the picture"
    ) throws {
        try format.sizeLimit.check(width: width, height: height, what: what)
        self.format = format
        self.width = width
        self.height = height
        encoder = try Encoder(named: format.encoderName, options: format == .webp ? ["quality": "80"] : [:]) {
            context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = pixelFormat ?? format.pixelFormat
            context.pointee.time_base = AVRational(num: 1, den: 25)
            if format == .jpeg {
                context.pointee.flags |= AV_CODEC_FLAG_QSCALE
                context.pointee.global_quality = 2 * FF_QP2LAMBDA
                context.pointee.color_range = AVCOL_RANGE_JPEG
            }
        }
    }

    /// Encodes `frame` (of the size and pixel format given at creation) and writes the picture to `path`,
    /// whole or not at all.
    public func write(_ frame: Frame, to path: String) throws {
        let (quality, pts) = (frame.pointer.pointee.quality, frame.pointer.pointee.pts)
        if format == .jpeg { frame.pointer.pointee.quality = encoder.context.pointee.global_quality }
        frame.pointer.pointee.pts = nextPicture
        nextPicture += 1
        defer { (frame.pointer.pointee.quality, frame.pointer.pointee.pts) = (quality, pts) }
        try encoder.send(frame)
        guard try encoder.receive(into: packet) else {
            throw MediaError(.internalError, "the \(format.encoderName) encoder gave no picture for a frame")
        }
        try AtomicFile.write(Data(packet.data), to: path)
    }
}
