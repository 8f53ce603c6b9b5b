import CFFmpeg
import MediaCore

/// The display-matrix rotation of the input's video (phones record upright pictures sideways and say how
/// to turn them), and how a transcode honours it.
struct VideoRotation {
    /// Clockwise degrees the picture is turned for display: 0, 90, 180 or 270.
    let clockwiseDegrees: Int
    /// The input's matrix, carried to the output when `rotate=keep`.
    let keptMatrix: [UInt8]?

    init(stream: UnsafeMutablePointer<AVStream>, keep: Bool) {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            (clockwiseDegrees, keptMatrix) = (0, nil)
            return
        }
        let angle = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        // libav gives the counter-clockwise angle; the picture is shown turned clockwise by its negation.
        let degrees = angle.isFinite ? Int((-angle).rounded()) : 0
        clockwiseDegrees = ((degrees % 360) + 360) % 360
        keptMatrix = keep ? Array(UnsafeBufferPointer(start: data, count: size)) : nil
    }

    /// The filters that turn the picture upright (`transpose`, or flips for half a turn).
    var uprightFilters: [String] {
        switch clockwiseDegrees {
        case 90: ["transpose=clock"]
        case 180: ["hflip", "vflip"]
        case 270: ["transpose=cclock"]
        default: []
        }
    }

    /// Attaches `matrix` to an output stream, where the ISO muxers write it into the track header.
    func attach(_ matrix: [UInt8], to stream: UnsafeMutablePointer<AVStream>) throws {
        guard let copy = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, matrix.count) else {
            throw MediaError(.internalError, "av_stream_new_side_data: out of memory")
        }
        copy.update(from: matrix, count: matrix.count)
    }
}
