/// The sample tables of one `trak` that say where its samples lie: chunk offsets (`stco`/`co64`), samples
/// per chunk (`stsc`) and sample sizes (`stsz`/`stz2`), kept as positions in the `moov` buffer.
///
/// libav reads a sample at the offset these tables give and, past the end of the file, quietly gets
/// nothing and stops: a file whose samples are not in it demuxed to empty outputs and "succeeded". A chunk
/// that ends past the end of the file is therefore `truncated_input`, the same as an `mdat` that runs past
/// the end: refused, or recorded for the job's warnings when salvaged.
///
/// Counts are read as far as their boxes hold entries (a table may claim more, see `ISOTableLayout`).
struct ISOTrackTables {
    /// How the track states its sample sizes.
    enum SampleSizes {
        /// Every sample has `size` bytes (`stsz` with a nonzero sample size).
        case constant(size: UInt32, count: UInt32)
        /// One `bits`-wide size per sample, from index `start` of the buffer.
        case table(start: Int, count: Int, bits: Int)
    }

    /// Position of the first entry, number of entries, and bytes per entry (4 for `stco`, 8 for `co64`).
    var chunkOffsets: (start: Int, count: Int, width: Int)?
    /// Position of the first `stsc` entry and number of entries.
    var chunkRuns: (start: Int, count: Int)?
    var sampleSizes: SampleSizes?

    /// QuickTime's sound descriptions may count audio frames with a sample size of 1 while compressed
    /// codecs (IMA4, MACE) pack several frames into a byte, so a size of 1 is read as at least one byte
    /// per this many samples.
    static let samplesPerByteAtSizeOne: UInt64 = 16

    /// Notes the table `box`, whose entries `ISOTableLayout` has found to fit in it.
    mutating func record(_ box: ISOBox, in walker: ISOBoxWalker) {
        let body = box.content.lowerBound + 4
        // A box too short for its counts (a finding already) is not read.
        let needed = ["stco": 8, "co64": 8, "stsc": 8, "stsz": 12, "stz2": 12][box.type] ?? 0
        guard box.content.count >= needed else { return }
        switch box.type {
        case "stco", "co64":
            let width = box.type == "stco" ? 4 : 8
            chunkOffsets = (body + 4, held(box, count: walker.uint32(at: body), after: 4, width: width), width)
        case "stsc":
            chunkRuns = (body + 4, held(box, count: walker.uint32(at: body), after: 4, width: 12))
        case "stsz":
            let size = walker.uint32(at: body)
            let count = walker.uint32(at: body + 4)
            sampleSizes =
                size == 0
                ? .table(start: body + 8, count: held(box, count: count, after: 8, width: 4), bits: 32)
                : .constant(size: size, count: count)
        case "stz2":
            let bits = Int(walker.uint8(at: body + 3))
            let count = Int(walker.uint32(at: body + 4))
            let room = (box.content.count - 12) * 8 / max(1, bits)
            sampleSizes = .table(start: body + 8, count: max(0, min(count, room)), bits: bits)
        default:
            break
        }
    }

    /// The entries of `count` that the box holds, `width` bytes each after `after` bytes of its body.
    private func held(_ box: ISOBox, count: UInt32, after: Int, width: Int) -> Int {
        min(Int(count), ISOTableLayout.entriesHeld(in: box, headerBytes: after, bytesPerEntry: width))
    }

    /// Finds (`truncated_input`) the chunks of track `track` (counted from 0) that end past the end of
    /// the file: the first is named, with how many there are.
    func checkExtents(in walker: ISOBoxWalker, track: Int) throws {
        let fileSize = walker.fileSize
        guard let offsets = chunkOffsets, let runs = chunkRuns, let sizes = sampleSizes else { return }
        var firstPast: (chunk: Int, start: UInt64, end: String)? = nil
        var chunksPast = 0
        var run = -1
        var nextSample = 0
        for chunk in 1..<(offsets.count + 1) {
            while run + 1 < runs.count, Int(walker.uint32(at: runs.start + 12 * (run + 1))) <= chunk { run += 1 }
            guard run >= 0 else { continue }
            let samples = UInt64(walker.uint32(at: runs.start + 12 * run + 4))
            let bytes: UInt64
            switch sizes {
            case .constant(let size, _):
                bytes = Self.bytes(of: samples, samplesOf: size)
            case .table(let start, let count, let bits):
                let taken = min(Int(samples), count - nextSample)
                bytes = (nextSample..<(nextSample + taken)).reduce(UInt64(0)) {
                    $0 + Self.size(ofSample: $1, start: start, bits: bits, in: walker)
                }
                nextSample += taken
            }
            guard bytes > 0 else { continue }
            let at = offsets.start + offsets.width * (chunk - 1)
            let start = offsets.width == 4 ? UInt64(walker.uint32(at: at)) : walker.uint64(at: at)
            let (end, overflow) = start.addingReportingOverflow(bytes)
            guard overflow || end > UInt64(fileSize) else { continue }
            chunksPast += 1
            if firstPast == nil { firstPast = (chunk, start, overflow ? "\(start) + \(bytes)" : "\(end)") }
        }
        if let first = firstPast {
            let others =
                chunksPast > 1
                ? " (and \(chunksPast - 1) later chunk\(chunksPast == 2 ? "" : "s") of its \(offsets.count))" : ""
            try walker.recorder.found(
                MediaError(
                    .truncatedInput,
                    "chunk \(first.chunk) of track \(track) declares bytes \(first.start) to \(first.end), "
                        + "but the file has only \(fileSize) bytes" + others))
        } else if case .constant(let size, let count) = sizes,
            Self.bytes(of: UInt64(count), samplesOf: size) > UInt64(fileSize)
        {
            try walker.recorder.found(
                MediaError(
                    .truncatedInput,
                    "track \(track) declares \(count) samples of \(size) bytes, "
                        + "but the file has only \(fileSize) bytes"))
        }
    }

    /// The fewest bytes `samples` samples of `size` bytes each can take.
    private static func bytes(of samples: UInt64, samplesOf size: UInt32) -> UInt64 {
        size == 1 ? (samples + samplesPerByteAtSizeOne - 1) / samplesPerByteAtSizeOne : samples * UInt64(size)
    }

    /// Size of sample `index` in a `stsz` (32-bit) or `stz2` (4, 8 or 16-bit) table.
    private static func size(ofSample index: Int, start: Int, bits: Int, in walker: ISOBoxWalker) -> UInt64 {
        switch bits {
        case 32: return UInt64(walker.uint32(at: start + 4 * index))
        case 16:
            return UInt64(walker.uint8(at: start + 2 * index)) << 8 | UInt64(walker.uint8(at: start + 2 * index + 1))
        case 8: return UInt64(walker.uint8(at: start + index))
        default:
            let byte = walker.uint8(at: start + index / 2)
            return UInt64(index % 2 == 0 ? byte >> 4 : byte & 0x0F)
        }
    }
}
