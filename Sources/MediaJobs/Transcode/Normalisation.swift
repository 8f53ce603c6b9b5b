import Foundation

/// The second pass of EBU R128 loudness normalisation: one linear gain that brings the measured input to
/// the target, as `loudnorm` does in its linear mode, lowered where the input's true peak would otherwise
/// pass the ceiling (the output is then quieter than the target, and a warning says by how much).
struct Normalisation {
    let target: Int
    let input: TranscodeResult.Loudness.Measurement
    /// The gain in dB.
    let gain: Double
    let warnings: [String]

    init(target: Int, ceiling: Int, input: TranscodeResult.Loudness.Measurement) {
        self.target = target
        self.input = input
        let wanted = Double(target) - input.integrated
        let allowed = Double(ceiling) - input.truePeak
        gain = R128Reading.hundredths(min(wanted, allowed))
        warnings =
            wanted > allowed
            ? [
                String(
                    format: "loudness: the input's true peak (%.1f dBTP) allows %.1f dB of gain under the %d dBTP "
                        + "ceiling, not %.1f: the output is %.1f LU below the %d LUFS target",
                    input.truePeak, allowed, ceiling, wanted, wanted - allowed, target)
            ] : []
    }
}
