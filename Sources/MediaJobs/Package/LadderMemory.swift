import Foundation
import MediaCore

/// An estimate of the address space a worker maps while it encodes a ladder, so that a ladder over the
/// worker's limit (`--job-memory`, its RLIMIT_AS) is refused before any work rather than failing part
/// way with whatever x264 makes of a failed allocation.
///
/// The address space is what the limit counts, and a ladder's is mostly x264's: per rendition, frames
/// waiting in the lookahead and for B-frames (about 3.5 bytes a pixel each), reference frames (1.3), what
/// each frame thread holds (8.5; x264 runs 1.5 frame threads a processor, at most one per 32 rows) and,
/// but with `ultrafast`, the half-pixel planes and motion data of the frames being coded (44). Every thread
/// of the process maps its stack and a share of the allocator's arenas (about 16.6 MB); the decoder holds
/// about 17 bytes a pixel of the source. The coefficients are a least-squares fit to the peak address
/// space (`VmPeak`) of 17 ladders from 1080p and 2160p sources on Debian 12 (x264 0.164, two
/// processors): 1 to 7 renditions at ultrafast, veryfast, medium and veryslow. The fit is off by at most
/// 73 MiB either way, and runs of one ladder spread by 140 MiB; 6 % and 96 MiB on top cover them all.
struct LadderMemory {
    /// The source's picture size and each rendition's, upright.
    var source: (width: Int, height: Int)
    var renditions: [(width: Int, height: Int)]
    var preset: TranscodeJob.Preset
    var processors = ProcessInfo.processInfo.activeProcessorCount

    /// A worker's own address space before a job (its executable, libav's and the codec libraries, the
    /// Swift runtime), about 420 MiB: the server's figure at admission, where the job reads its own.
    static let idleWorkerBytes: Int64 = 420 << 20
    /// What a ladder maps whatever its size: the input, the filters, the intermediate file's muxer.
    static let jobBytes: Int64 = 100 << 20
    static let bytesPerThread = 16.6e6
    static let bytesPerSourcePixel = 16.9

    /// The estimate, bytes, for a worker that maps `base` bytes before the job.
    func bytes(base: Int64 = idleWorkerBytes) -> Int64 {
        let (lookahead, bFrames, references) = Self.presetFrames[preset] ?? (40, 3, 3)
        var threads = (processors + 1) + processors
        var modelled = Double(source.width * source.height) * Self.bytesPerSourcePixel
        for rendition in renditions {
            let frameThreads = Self.frameThreads(height: rendition.height, processors: processors)
            threads += frameThreads + 2
            let perPixel =
                3.46 * Double(lookahead + bFrames) + 1.31 * Double(references) + 8.5 * Double(frameThreads)
                + (preset == .ultrafast ? 0 : 44)
            modelled += Double(rendition.width * rendition.height) * perPixel
        }
        modelled += Double(threads) * Self.bytesPerThread
        return base + Self.jobBytes + Int64(modelled * 1.06) + (96 << 20)
    }

    /// x264's frame threads when left to choose: 1.5 a processor, at most one per 32 rows.
    static func frameThreads(height: Int, processors: Int) -> Int {
        min(max(1, processors * 3 / 2), max(1, (height + 15) / 16 / 2))
    }

    /// x264's `rc_lookahead`, `bframes` and `ref` per preset.
    private static let presetFrames: [TranscodeJob.Preset: (Int, Int, Int)] = [
        .ultrafast: (0, 0, 1), .superfast: (0, 3, 1), .veryfast: (10, 3, 1), .faster: (20, 3, 2), .fast: (30, 3, 2),
        .medium: (40, 3, 3), .slow: (50, 3, 5), .slower: (60, 3, 8), .veryslow: (60, 8, 16),
    ]

    /// Throws `invalid_option` when the estimate is over `limit`, saying both, what the largest rendition
    /// alone needs and what to change.
    func check(limit: Int64, base: Int64 = idleWorkerBytes) throws {
        let needed = bytes(base: base)
        guard needed > limit else { return }
        var advice: [String] = []
        if renditions.count > 1, let largest = renditions.first {
            let alone = LadderMemory(
                source: source, renditions: [largest], preset: preset, processors: processors)
            advice.append(
                "drop the largest renditions (\(largest.height)p alone needs about \(Self.text(alone.bytes(base: base))))"
            )
        }
        if preset != .ultrafast {
            var faster = self
            faster.preset = .ultrafast
            advice.append("use a faster preset (ultrafast needs about \(Self.text(faster.bytes(base: base))))")
        }
        advice.append("or raise --job-memory")
        throw MediaError(
            .invalidOption,
            "renditions \(renditions.map { "\($0.height)p" }.joined(separator: ",")) at preset \(preset.rawValue) "
                + "need an estimated \(Self.text(needed)) of memory, over the \(Self.text(limit)) a job may use "
                + "here (--job-memory): " + advice.joined(separator: ", "))
    }

    /// `2.9 GiB`, `640 MiB`.
    static func text(_ bytes: Int64) -> String {
        bytes >= 1 << 30
            ? String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) : "\(bytes >> 20) MiB"
    }

    /// The limit this process runs under (RLIMIT_AS), or nil when it has none.
    static var processLimit: Int64? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(UInt32(RLIMIT_AS.rawValue)), &limit) == 0, limit.rlim_cur != rlim_t.max
        else { return nil }
        return Int64(clamping: limit.rlim_cur)
    }

    /// The address space this process maps now (`VmSize`), or nil when /proc does not say.
    static var processSize: Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
            let kilobytes = Int64(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}
