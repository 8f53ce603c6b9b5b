import Foundation
import MediaCore

/// A 1 kHz test tone written as raw PCM in any `SampleFormat`, kept as floats for comparison.
///
/// Channel c carries the tone at P·(1 − 0.15·c) of full scale, so a swapped or dropped channel shows up
/// as a failed SNR; channel 3 (the LFE of 5.1, which AAC low-passes) carries 100 Hz instead. The tone
/// fades in over the first 8192 samples because the native AAC encoder's rate control needs a few frames
/// to settle, and an abrupt full-scale start would let that transient dominate the measurement. (Tones
/// that differ between channels are a poor probe: the encoder codes them at ~10–15 dB SNR at 96 kb/s.)
/// P is 0.5, but 0.8 for u8: 8-bit quantisation noise sits only ~44 dB below a half-scale tone, and the
/// encoder spends enough of its bits on that noise to pull the SNR to ~19.5 dB in one case.
/// `samples` holds the values as stored (after quantisation), interleaved.
struct Sine {
    let sampleRate: Int
    let channels: Int
    let count: Int
    let samples: [Double]
    static let fade = 8192

    init(sampleRate: Int, channels: Int, count: Int, format: SampleFormat) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.count = count
        var values: [Double] = []
        values.reserveCapacity(count * channels)
        for index in 0..<count {
            for channel in 0..<channels {
                let frequency = channel == 3 ? 100.0 : 1000.0
                let level = (format == .u8 ? 0.8 : 0.5) * (1 - 0.15 * Double(channel))
                let envelope = index < Sine.fade ? 0.5 * (1 - cos(Double.pi * Double(index) / Double(Sine.fade))) : 1
                let ideal = level * envelope * sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate))
                values.append(Sine.quantise(ideal, format))
            }
        }
        samples = values
    }

    /// The value `format` stores for `value`, read back as a float in -1…1.
    static func quantise(_ value: Double, _ format: SampleFormat) -> Double {
        switch format {
        case .u8: (value * 128).rounded() / 128
        case .s16le, .s16be: (value * 32768).rounded() / 32768
        case .s24le: (value * 8_388_608).rounded() / 8_388_608
        case .s32le: (value * 2_147_483_648).rounded() / 2_147_483_648
        case .f32le: Double(Float(value))
        case .f64le: value
        }
    }

    /// The samples as `format` stores them.
    func bytes(_ format: SampleFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.count * format.bytesPerSample)
        func little<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        for value in samples {
            switch format {
            case .u8: out.append(UInt8(Int(value * 128) + 128))
            case .s16le: little(Int16(value * 32768))
            case .s16be: withUnsafeBytes(of: Int16(value * 32768).bigEndian) { out += $0 }
            case .s24le:
                let integer = Int32(value * 8_388_608)
                withUnsafeBytes(of: integer.littleEndian) { out += $0.prefix(3) }
            case .s32le: little(Int32(value * 2_147_483_648))
            case .f32le: little(Float(value).bitPattern)
            case .f64le: little(value.bitPattern)
            }
        }
        return out
    }

    /// Signal-to-noise ratio in dB of `decoded` (interleaved, same layout) against these samples.
    func snr(of decoded: [Float]) -> Double {
        var signal = 0.0
        var noise = 0.0
        for (index, value) in samples.enumerated() where index < decoded.count {
            signal += value * value
            let error = Double(decoded[index]) - value
            noise += error * error
        }
        return 10 * log10(signal / max(noise, 1e-30))
    }
}
