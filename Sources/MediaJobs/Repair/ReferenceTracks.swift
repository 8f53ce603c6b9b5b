import CFFmpeg
import MediaCore

/// What a reference's video track tells about the broken recording's video samples.
struct ReferenceVideo {
    let streamIndex: Int
    let isHEVC: Bool
    let configuration: ConfigurationRecord
    /// The unit of the track's timestamps.
    let timeBase: AVRational
    /// One frame in `timeBase`: the most common sample duration.
    let frameDuration: Int64
    /// When the first sample is decoded, in seconds (negative with B-frames).
    let startSeconds: Double
    /// When the first picture is shown, in frames: 0 for most files, the reorder delay for those that
    /// shift presentation instead of decoding.
    let presentationOffset: Int64
    /// The largest sample read.
    let largestSample: Int
    /// How far apart the picture order counts of neighbouring pictures are, when the reference's first
    /// samples tell (2 for x264, 1 for x265).
    let pictureOrderSpacing: Int64?
    /// Whether some picture has more than one slice.
    let hasLaterSlices: Bool
    /// NAL unit types the standard leaves unspecified that the reference's samples carry after their
    /// slices (Dolby Vision's RPU and enhancement layer in H.265 types 62 and 63).
    let unspecifiedUnitTypes: Set<Int>

    var codecName: String { isHEVC ? "H.265" : "H.264" }
    var frameSeconds: Double { Double(frameDuration) * av_q2d(timeBase) }

    /// The largest NAL unit accepted in the broken recording: four times the reference's largest sample, at
    /// least 1 MiB (a richer scene codes bigger pictures) and at most 64 MiB.
    var maxUnitSize: Int { min(max(4 * largestSample, 1 << 20), 64 << 20) }
}

/// What a reference's audio track tells about the broken recording's audio samples.
struct ReferenceAudio {
    enum Coding {
        /// Raw AAC frames of `frameSamples` samples; `leadingBits` holds the first seven bits (element type
        /// and instance tag) the reference's frames start with, when it had enough frames to tell;
        /// `silentFrames` says whether it has frames without audio (`SilentAACFrame`).
        case aac(frameSamples: Int, leadingBits: Set<UInt8>?, silentFrames: Bool)
        /// PCM of `blockAlign` bytes per sample frame, in runs whose lengths the reference shows.
        case pcm(blockAlign: Int, runLengths: [Int], packetSize: Int)
    }

    let streamIndex: Int
    let codecName: String
    let coding: Coding
    let sampleRate: Int
    let channels: Int
    /// When the first sample is presented, in samples: negative by the encoder priming an edit list hides,
    /// positive when the track starts after the video.
    let startSamples: Int64

    var isAAC: Bool { if case .aac = coding { true } else { false } }
}

/// What one reference packet read for statistics was.
struct ReferencePacket {
    let isVideo: Bool
    let position: Int64
    let size: Int
}

extension ReferenceAudio.Coding {
    /// The lengths of the reference's audio runs: audio bytes between two other samples in the file.
    static func runLengths(_ packets: [ReferencePacket]) -> [Int] {
        var runs: Set<Int> = []
        var current = 0
        var runEnd: Int64 = -1
        for packet in packets.sorted(by: { $0.position < $1.position }) {
            if !packet.isVideo && packet.position == runEnd {
                current += packet.size
            } else {
                if current > 0 { runs.insert(current) }
                current = packet.isVideo ? 0 : packet.size
            }
            runEnd = packet.isVideo ? -1 : packet.position + Int64(packet.size)
        }
        if current > 0 { runs.insert(current) }
        return runs.sorted()
    }
}

/// The most common value of a list (the smallest of equals), or nil for an empty one.
func mostCommon<T: Hashable & Comparable>(_ values: [T]) -> T? {
    var counts: [T: Int] = [:]
    for value in values { counts[value, default: 0] += 1 }
    return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
}
