import Foundation
import MediaCore

/// What libavfilter's `ebur128` (with `metadata=1`) has measured so far, read from the frames it passes
/// on: its integrated loudness and range are running totals, so the last frame's are the track's; its
/// peaks are per frame, so the track's are the largest seen.
///
/// Shared by `probe`'s loudness and transcode's normalisation passes, so both report the same figures
/// the same way `ffmpeg -af ebur128` does.
struct R128Reading {
    /// Integrated loudness in LUFS, once the filter has reported one.
    private(set) var integrated: Double?
    /// Loudness range in LU, once the filter has reported one.
    private(set) var range: Double?
    /// The highest true peak so far, linear (1 is full scale); 0 until the filter reports one.
    private(set) var truePeak = 0.0
    /// The highest sample peak so far, linear; reported only with `peak=sample`.
    private(set) var samplePeak = 0.0

    /// Takes the measurements `frame` carries.
    mutating func take(_ frame: Frame) {
        integrated = value(frame, "lavfi.r128.I") ?? integrated
        range = value(frame, "lavfi.r128.LRA") ?? range
        truePeak = max(truePeak, value(frame, "lavfi.r128.true_peak") ?? 0)
        samplePeak = max(samplePeak, value(frame, "lavfi.r128.sample_peak") ?? 0)
    }

    /// `20·log10(amplitude)` rounded to 0.01 dB (finer than any loudness meter's accuracy), or nil for
    /// silence.
    static func decibels(_ amplitude: Double) -> Double? {
        guard amplitude > 0 else { return nil }
        return hundredths(20 * log10(amplitude))
    }

    /// `value` to 0.01.
    static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    private func value(_ frame: Frame, _ key: String) -> Double? { frame.metadata(key).flatMap(Double.init) }
}
