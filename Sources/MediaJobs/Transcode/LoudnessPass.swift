import Foundation
import CFFmpeg
import MediaCore

/// EBU R128 loudness of a file's first audio track, measured by libavfilter's `ebur128` (with true peak):
/// the first pass of a two-pass normalisation, and the check of its output.
enum LoudnessPass {
    /// Measures the audio of `path` after `filters` (the transcode's cut), polling `context` between frames.
    static func measure(_ path: String, after filters: [String], _ context: JobContext) throws
        -> TranscodeResult.Loudness.Measurement
    {
        let audio = try DecodedTrack(path: path, type: AVMEDIA_TYPE_AUDIO)
        let chain = (filters + ["ebur128=peak=true:metadata=1"]).joined(separator: ",")
        let graph = try FilterGraph("[in]\(chain)[out]", sources: [audio.source(named: "in")], sinks: [.audio("out")])
        let (decoded, measured) = (Frame(), Frame())
        var totals: (integrated: Double, range: Double)?
        var peak = 0.0
        var open = true
        while true {
            try context.checkpoint()
            if open {
                if try audio.next(into: decoded) {
                    try graph.push(decoded, to: "in")
                } else {
                    try graph.finish("in")
                    open = false
                }
            }
            var pulled = try graph.pull(from: "out", into: measured)
            while pulled == .frame {
                totals = runningTotals(measured) ?? totals
                peak = max(peak, framePeak(measured))
                pulled = try graph.pull(from: "out", into: measured)
            }
            if pulled == .end || !open { break }
        }
        // ebur128 reports -70 LUFS, its absolute gate, for audio with no block above it.
        guard let totals, totals.integrated > -70, peak > 0 else {
            throw MediaError(.invalidInput, "the audio is silent: its loudness cannot be measured or normalised")
        }
        return TranscodeResult.Loudness.Measurement(
            integrated: hundredths(totals.integrated), range: hundredths(totals.range),
            truePeak: hundredths(20 * log10(peak)))
    }

    /// `value` to 0.01, finer than any loudness meter's accuracy.
    static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    /// The integrated loudness (LUFS) and loudness range (LU) `ebur128` has measured up to this frame.
    private static func runningTotals(_ frame: Frame) -> (integrated: Double, range: Double)? {
        guard let integrated = frame.metadata("lavfi.r128.I").flatMap(Double.init),
            let range = frame.metadata("lavfi.r128.LRA").flatMap(Double.init)
        else { return nil }
        return (integrated, range)
    }

    /// The highest true peak of any channel within this frame, linear (1 is full scale).
    private static func framePeak(_ frame: Frame) -> Double {
        let channels = Int(frame.pointer.pointee.ch_layout.nb_channels)
        return (0..<channels).compactMap { frame.metadata("lavfi.r128.true_peaks_ch\($0)").flatMap(Double.init) }
            .max() ?? 0
    }
}
