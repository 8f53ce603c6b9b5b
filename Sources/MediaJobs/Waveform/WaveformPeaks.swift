/// Min/max pairs over fixed runs of 16-bit samples, computed as audiowaveform computes them, and written
/// in its JSON format version 2 (the one peaks.js and wavesurfer read).
///
/// Merged (one output channel): each sample frame is the integer mean of its channels, truncated toward
/// zero. Split: each channel on its own, the pairs of one pixel interleaved channel by channel in `data`.
/// Every `samplesPerPixel` frames close a pair; a shorter last run closes one too. With 8 bits each value
/// is the 16-bit one divided by 256, truncated toward zero.
public struct WaveformPeaks: Sendable, Codable, Equatable {
    public var version = 2
    public var channels: Int
    public var sampleRate: Int
    public var samplesPerPixel: Int
    public var bits: Int
    /// Pairs per channel.
    public var length: Int
    /// `min, max` per pixel and channel, in pixel order.
    public var data: [Int]

    enum CodingKeys: String, CodingKey {
        case version, channels, bits, length, data
        case sampleRate = "sample_rate"
        case samplesPerPixel = "samples_per_pixel"
    }

    /// The largest magnitude a value of `bits` reaches.
    public var fullScale: Int { bits == 8 ? 128 : 32768 }
}

/// Builds `WaveformPeaks` from interleaved 16-bit samples fed in any run lengths.
struct WaveformPeakAccumulator {
    let inputChannels: Int
    private(set) var peaks: WaveformPeaks
    private var minimum: [Int]
    private var maximum: [Int]
    private var count = 0
    /// Sample frames taken in so far.
    private(set) var frames: Int64 = 0

    init(inputChannels: Int, split: Bool, sampleRate: Int, samplesPerPixel: Int, bits: Int) {
        self.inputChannels = inputChannels
        let channels = split ? inputChannels : 1
        peaks = WaveformPeaks(
            channels: channels, sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, bits: bits, length: 0,
            data: [])
        minimum = Array(repeating: Int(Int16.max), count: channels)
        maximum = Array(repeating: Int(Int16.min), count: channels)
    }

    /// Takes whole sample frames of `inputChannels` interleaved samples.
    mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        let split = peaks.channels > 1
        var index = 0
        while index + inputChannels <= samples.count {
            if split {
                for channel in 0..<inputChannels { take(Int(samples[index + channel]), channel: channel) }
            } else {
                var sum = 0
                for channel in 0..<inputChannels { sum += Int(samples[index + channel]) }
                take(sum / inputChannels, channel: 0)
            }
            index += inputChannels
            frames += 1
            count += 1
            if count == peaks.samplesPerPixel { closePair() }
        }
    }

    /// Closes the last, shorter run, if any.
    mutating func finish() {
        if count > 0 { closePair() }
    }

    private mutating func take(_ value: Int, channel: Int) {
        if value < minimum[channel] { minimum[channel] = value }
        if value > maximum[channel] { maximum[channel] = value }
    }

    private mutating func closePair() {
        let divisor = peaks.bits == 8 ? 256 : 1
        for channel in 0..<peaks.channels {
            peaks.data.append(minimum[channel] / divisor)
            peaks.data.append(maximum[channel] / divisor)
            minimum[channel] = Int(Int16.max)
            maximum[channel] = Int(Int16.min)
        }
        peaks.length += 1
        count = 0
    }
}
