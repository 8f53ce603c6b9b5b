import CFFmpeg
import Foundation
import MediaCore

/// Headerless camera frames, I420 or NV12, read one frame at a time into `Frame`s timed in frames
/// (time base 1/fps).
///
/// Raw frames have no header, so the options describe them and the one thing the file can be checked
/// for is its length: a whole number of frames of that size, else `partial_frame` before anything is
/// encoded (as for raw PCM).
final class RawVideoSource {
    let geometry: EncodeJob.Options.FrameGeometry
    /// Bytes of one frame: the luma plane and both chroma planes, rows back to back.
    let frameBytes: Int
    let totalFrames: Int64
    private(set) var framesRead: Int64 = 0
    private let file: RawFrameFile
    private var buffer: [UInt8]

    init(path: String, geometry: EncodeJob.Options.FrameGeometry) throws {
        self.geometry = geometry
        let frameBytes = geometry.width * geometry.height * 3 / 2
        self.frameBytes = frameBytes
        file = try RawFrameFile(path: path, frameBytes: frameBytes) { size in
            "the raw video input is \(size) bytes, not a whole number of \(frameBytes)-byte "
                + "\(geometry.width)x\(geometry.height) \(geometry.pixelFormat.rawValue) frames: "
                + "\(size / Int64(frameBytes)) frame(s) and \(size % Int64(frameBytes)) byte(s) left over "
                + "(check width, height and pixel_format)"
        }
        totalFrames = file.frames
        buffer = [UInt8](repeating: 0, count: frameBytes)
    }

    deinit { close(file.descriptor) }

    var libavFormat: AVPixelFormat { geometry.pixelFormat == .nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P }

    /// The frames' time base: one tick a frame.
    var timeBase: AVRational {
        AVRational(num: Int32(geometry.fps.denominator), den: Int32(geometry.fps.numerator))
    }

    /// The seconds of input read so far.
    var seconds: Double { Double(framesRead) / geometry.fps.framesPerSecond }

    var duration: Double { Double(totalFrames) / geometry.fps.framesPerSecond }

    /// Reads the next frame into a fresh buffer of `frame` (the filters may still hold the last one);
    /// false at the end of the file.
    func next(into frame: Frame) throws -> Bool {
        guard framesRead < totalFrames else { return false }
        try fill()
        frame.unref()
        frame.pointer.pointee.width = Int32(geometry.width)
        frame.pointer.pointee.height = Int32(geometry.height)
        frame.pointer.pointee.format = libavFormat.rawValue
        frame.pointer.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        try LibavError.check(av_frame_get_buffer(frame.pointer, 0), "allocating a video frame", code: .internalError)
        let planes = frame.pointer.pointee.extended_data!
        let strides = withUnsafeBytes(of: frame.pointer.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
        let (width, height) = (geometry.width, geometry.height)
        let layout =
            geometry.pixelFormat == .nv12
            ? [(width, height), (width, height / 2)]
            : [(width, height), (width / 2, height / 2), (width / 2, height / 2)]
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            for (plane, (rowBytes, rows)) in layout.enumerated() {
                let destination = planes[plane]!
                for row in 0..<rows {
                    (destination + row * Int(strides[plane])).update(
                        from: bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self),
                        count: rowBytes)
                    offset += rowBytes
                }
            }
        }
        frame.pts = framesRead
        framesRead += 1
        return true
    }

    /// Reads one whole frame's bytes into `buffer`.
    private func fill() throws {
        let (file, frameBytes, framesRead) = (file, frameBytes, framesRead)
        try buffer.withUnsafeMutableBytes { bytes in
            try file.read(into: bytes.baseAddress!, count: frameBytes, progress: "\(framesRead) frames")
        }
    }
}
