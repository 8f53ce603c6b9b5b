import CFFmpeg

/// Writes decoded video frames to one file as packed planes (each plane's rows back to back, no padding):
/// headerless, as `ffmpeg -f rawvideo` writes them, or as YUV4MPEG2 with `Y4MHeader` before the first
/// frame and a `FRAME` marker before each.
///
/// The bytes go through libav's `rawvideo` muxer into an `OutputFile`, so the file appears under its name
/// only once complete. Every frame must have the first one's size and pixel format.
public final class RawVideoWriter {
    /// How the frames are framed in the file.
    public enum Layout: Sendable {
        /// Planes only.
        case raw
        /// YUV4MPEG2: a stream header, then `FRAME\n` and the planes of each frame.
        case y4m
    }

    public let layout: Layout
    /// The rate a Y4M header states; raw files do not store one.
    public let frameRate: AVRational
    private let output: OutputFile
    private let packet = Packet()
    /// The size and pixel format of the first frame, which every later frame must share.
    public private(set) var shape: (width: Int32, height: Int32, format: AVPixelFormat)?
    public private(set) var framesWritten: Int64 = 0
    private var header: [UInt8] = []

    public init(path: String, layout: Layout, frameRate: AVRational) throws {
        self.layout = layout
        self.frameRate = frameRate
        output = try OutputFile(path: path, muxer: "rawvideo")
    }

    /// Appends `frame`'s planes; `invalid_input` when its size or pixel format differs from the first's.
    public func write(_ frame: Frame) throws {
        let picture = frame.pointer.pointee
        let format = AVPixelFormat(rawValue: picture.format)
        if let shape {
            guard shape.width == picture.width, shape.height == picture.height, shape.format == format else {
                throw MediaError(
                    .invalidInput,
                    "the video changes from \(shape.width)x\(shape.height) to \(picture.width)x\(picture.height) "
                        + "(or its pixel format) mid-stream; a raw frame file holds one size")
            }
        } else {
            try start(with: frame, format: format)
        }
        let planes = try LibavError.check(
            av_image_get_buffer_size(format, picture.width, picture.height, 1), "sizing a video frame",
            code: .internalError)
        let prefix = (framesWritten == 0 ? header : []) + (layout == .y4m ? Y4MHeader.frameMarker : [])
        packet.unref()
        try LibavError.check(
            av_new_packet(packet.pointer, Int32(prefix.count) + planes), "allocating a packet", code: .internalError)
        let data = packet.pointer.pointee.data!
        data.update(from: prefix, count: prefix.count)
        // A video frame's `extended_data` is its `data`: the plane pointers libav's image functions take.
        let sources = UnsafeRawPointer(frame.pointer.pointee.extended_data!).assumingMemoryBound(
            to: UnsafePointer<UInt8>?.self)
        let strides = withUnsafeBytes(of: frame.pointer.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
        try LibavError.check(
            av_image_copy_to_buffer(
                data + prefix.count, planes, sources, strides, format, picture.width, picture.height, 1),
            "packing a video frame", code: .internalError)
        packet.pts = framesWritten
        packet.dts = framesWritten
        packet.duration = 1
        try output.write(packet)
        framesWritten += 1
    }

    /// Finishes the file; `invalid_input` when no frame was written, as an empty frame file says nothing.
    public func finish() throws {
        guard framesWritten > 0 else { throw MediaError(.invalidInput, "no video frame could be decoded") }
        try output.finish()
    }

    private func start(with frame: Frame, format: AVPixelFormat) throws {
        if layout == .y4m { header = Array(try Y4MHeader(for: frame, frameRate: frameRate).line.utf8) }
        let parameters = CodecParameters()
        parameters.pointer.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointer.pointee.codec_id = AV_CODEC_ID_RAWVIDEO
        parameters.pointer.pointee.width = frame.pointer.pointee.width
        parameters.pointer.pointee.height = frame.pointer.pointee.height
        parameters.pointer.pointee.format = format.rawValue
        try output.addStream(copying: parameters.pointer, timeBase: AVRational(num: frameRate.den, den: frameRate.num))
        try output.writeHeader()
        shape = (frame.pointer.pointee.width, frame.pointer.pointee.height, format)
    }
}
