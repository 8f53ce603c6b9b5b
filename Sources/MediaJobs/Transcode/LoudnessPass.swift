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
        var reading = R128Reading()
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
                reading.take(measured)
                pulled = try graph.pull(from: "out", into: measured)
            }
            if pulled == .end || !open { break }
        }
        // ebur128 reports -70 LUFS, its absolute gate, for audio with no block above it.
        guard let integrated = reading.integrated, let range = reading.range, integrated > -70,
            let truePeak = R128Reading.decibels(reading.truePeak)
        else {
            throw MediaError(.invalidInput, "the audio is silent: its loudness cannot be measured or normalised")
        }
        return TranscodeResult.Loudness.Measurement(
            integrated: R128Reading.hundredths(integrated), range: R128Reading.hundredths(range), truePeak: truePeak)
    }
}
