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
    }

    public let format: Format
    public let width: Int
    public let height: Int
    private let encoder: Encoder
    private let packet = Packet()

    /// An encoder for `width`×`height` frames in `pixelFormat` (the format's own by default). JPEG is
    /// written at quality 2 on libav's 2–31 scale, WebP at libwebp's quality 80: thumbnails meant to be
    /// looked at, not archived.
    public init(_ format: Format, width: Int, height: Int, pixelFormat: AVPixelFormat? = nil) throws {
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
        let quality = frame.pointer.pointee.quality
        if format == .jpeg { frame.pointer.pointee.quality = encoder.context.pointee.global_quality }
        defer { frame.pointer.pointee.quality = quality }
        try encoder.send(frame)
        guard try encoder.receive(into: packet) else {
            throw MediaError(.internalError, "the \(format.encoderName) encoder gave no picture for a frame")
        }
        try AtomicFile.write(Data(packet.data), to: path)
    }
}
