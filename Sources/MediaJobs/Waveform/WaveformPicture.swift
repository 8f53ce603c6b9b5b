import CFFmpeg
import MediaCore

/// Draws peaks as a picture: one vertical line per column from the column's maximum down to its minimum,
/// zero in the middle, the channels of split peaks in bands from top to bottom.
///
/// Each column covers an equal share of the pairs (at least one), so the whole recording fits the width;
/// with fewer pairs than columns a pair spans several columns.
struct WaveformPicture {
    let peaks: WaveformPeaks
    let width: Int
    let height: Int
    let background: RGBAColor
    let foreground: RGBAColor

    /// The picture as an RGBA frame.
    func frame() throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        try LibavError.check(av_frame_get_buffer(frame.pointer, 0), "allocating a picture", code: .internalError)
        let stride = Int(frame.pointer.pointee.linesize.0)
        let pixels = frame.pointer.pointee.data.0!
        for row in 0..<height {
            for column in 0..<width { paint(pixels + row * stride + column * 4, background) }
        }
        let bandHeight = height / peaks.channels
        guard peaks.length > 0, bandHeight > 0 else { return frame }
        for column in 0..<width {
            let first = column * peaks.length / width
            let last = max(first + 1, (column + 1) * peaks.length / width)
            for channel in 0..<peaks.channels {
                var low = Int.max
                var high = Int.min
                for pair in first..<last {
                    let index = (pair * peaks.channels + channel) * 2
                    low = min(low, peaks.data[index])
                    high = max(high, peaks.data[index + 1])
                }
                let top = channel * bandHeight + row(of: high, in: bandHeight)
                let bottom = channel * bandHeight + row(of: low, in: bandHeight)
                for row in top...max(top, bottom) { paint(pixels + row * stride + column * 4, foreground) }
            }
        }
        return frame
    }

    /// The row of a band `bandHeight` high that `value` reaches: full scale at the top, its negative at
    /// the bottom.
    private func row(of value: Int, in bandHeight: Int) -> Int {
        let scale = Double(peaks.fullScale)
        let fraction = (scale - Double(value)) / (2 * scale)
        return min(bandHeight - 1, max(0, Int((fraction * Double(bandHeight - 1)).rounded())))
    }

    private func paint(_ pixel: UnsafeMutablePointer<UInt8>, _ color: RGBAColor) {
        pixel[0] = color.red
        pixel[1] = color.green
        pixel[2] = color.blue
        pixel[3] = color.alpha
    }
}
