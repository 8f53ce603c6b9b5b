import CFFmpeg
import Foundation
import MediaCore

/// Scores a transcode's video against its source with libavfilter's `ssim` or `psnr`: the source's
/// frames go through the same cut, rotation, rate and size filters as the encode did, so each output
/// frame meets the source frame it was made from.
struct QualityMeter {
    var measure: TranscodeJob.QualityMeasure
    var options: TranscodeJob.Options
    var window: TimeWindow
    var rotation: VideoRotation

    /// The mean of the per-frame scores: SSIM's `All`, or PSNR's `psnr_avg` (the three planes together).
    func score(output: String, source: String, _ context: JobContext) throws -> TranscodeResult.Quality {
        let encoded = try DecodedTrack(path: output, type: AVMEDIA_TYPE_VIDEO)
        let original = try DecodedTrack(path: source, type: AVMEDIA_TYPE_VIDEO)
        let chain = VideoTranscoder.filters(options: options, window: window, rotation: rotation)
        let pixelFormat = options.effectivePixelFormat.rawValue
        let graph = try FilterGraph(
            "[reference]\(chain)[r];[encoded]format=\(pixelFormat)[e];[e][r]\(measure.rawValue)[scored]",
            sources: [encoded.source(named: "encoded"), original.source(named: "reference")],
            sinks: [.video("scored")])
        let key = measure == .ssim ? "lavfi.ssim.All" : "lavfi.psnr.psnr_avg"
        let (left, right, scored) = (Frame(), Frame(), Frame())
        var (sum, count) = (0.0, 0)
        var (encodedOpen, originalOpen) = (true, true)
        func collect() throws -> Bool {
            while true {
                switch try graph.pull(from: "scored", into: scored) {
                case .frame:
                    if let value = scored.metadata(key).flatMap(Double.init), value.isFinite {
                        sum += value
                        count += 1
                    }
                case .needsInput: return true
                case .end: return false
                }
            }
        }
        /// Pushes the next frame of `video` into `source`, or ends it; false once it has ended.
        func feed(_ video: DecodedTrack, through frame: Frame, to source: String) throws -> Bool {
            if try video.next(into: frame) {
                try graph.push(frame, to: source)
                return true
            }
            try graph.finish(source)
            return false
        }
        while encodedOpen || originalOpen {
            try context.checkpoint()
            if encodedOpen { encodedOpen = try feed(encoded, through: left, to: "encoded") }
            if originalOpen { originalOpen = try feed(original, through: right, to: "reference") }
            if try !collect() { break }
        }
        guard count > 0 else { throw MediaError(.internalError, "\(measure) compared no frames") }
        return TranscodeResult.Quality(metric: measure.rawValue, score: sum / Double(count), frames: count)
    }
}
