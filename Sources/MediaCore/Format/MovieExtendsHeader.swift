import Foundation

/// Adds the Movie Extends Header (`mehd`) to a finished fragmented MP4 written by libav 5.1, which writes
/// the `mvex` box without it.
///
/// With an empty `moov`, `mehd` is the one place that says how long the whole presentation is: without
/// it a player learns the duration only by reading every fragment. The duration comes from the global
/// `sidx` boxes (`movflags +global_sidx`), which index every fragment of each track. The box goes at the
/// start of `mvex`, so every byte after `moov` moves 20 bytes on; the fragments' own offsets are relative
/// to their `moof` (`default_base_moof`) and the `sidx` offsets to the `sidx`, so only the absolute
/// `moof` offsets of the fragment index (`tfra` in `mfra`) are rewritten.
public enum MovieExtendsHeader {
    private static let boxSize = 20

    /// Inserts `mehd` into the file at `path`; a file without `mvex` or `sidx`, or that has `mehd`
    /// already, is left as it is.
    public static func insert(intoFileAt path: String) throws {
        let file = try ISOFileAccess(path: path)
        let top = try file.topLevelBoxes()
        guard let moov = top.first(where: { $0.type == "moov" }) else { return }
        var movie = try file.read(moov.offset, count: Int(moov.size))
        let children = ISOFileAccess.boxes(in: movie, from: 8)
        guard let mvex = children.first(where: { $0.type == "mvex" }),
            !ISOFileAccess.boxes(in: movie, from: Int(mvex.offset) + 8, to: Int(mvex.offset + mvex.size))
                .contains(where: { $0.type == "mehd" }),
            let mvhd = children.first(where: { $0.type == "mvhd" })
        else { return }
        let movieTimescale = Int64(
            ISOFileAccess.uint32(movie, at: Int(mvhd.offset) + (movie[Int(mvhd.offset) + 8] == 1 ? 28 : 20)))
        var seconds = 0.0
        for sidx in top where sidx.type == "sidx" {
            seconds = max(seconds, SegmentIndex(bytes: try file.read(sidx.offset, count: Int(sidx.size))).endSeconds)
        }
        guard seconds > 0 else { return }

        let duration = UInt64((seconds * Double(movieTimescale)).rounded(.up))
        var header: [UInt8] = [0, 0, 0, UInt8(boxSize)] + Array("mehd".utf8) + [1, 0, 0, 0]
        header += (0..<8).map { UInt8(truncatingIfNeeded: duration >> (56 - 8 * $0)) }
        movie.insert(contentsOf: header, at: Int(mvex.offset) + 8)
        ISOFileAccess.addToSize(&movie, at: Int(mvex.offset), boxSize)
        ISOFileAccess.addToSize(&movie, at: 0, boxSize)

        try file.shiftTail(from: moov.offset + moov.size, by: boxSize)
        try file.write(movie, at: moov.offset)
        if let mfra = top.last(where: { $0.type == "mfra" }) {
            try rewriteFragmentIndex(in: file, at: mfra.offset + Int64(boxSize), size: Int(mfra.size))
        }
    }

    /// Moves every `moof` offset of the `tfra` boxes in the `mfra` at `offset` on by the inserted box.
    private static func rewriteFragmentIndex(in file: ISOFileAccess, at offset: Int64, size: Int) throws {
        var index = try file.read(offset, count: size)
        for tfra in ISOFileAccess.boxes(in: index, from: 8) where tfra.type == "tfra" {
            let start = Int(tfra.offset)
            let wide = index[start + 8] == 1
            let lengths = ISOFileAccess.uint32(index, at: start + 16)
            let entryCount = Int(ISOFileAccess.uint32(index, at: start + 20))
            let numbers = Int((lengths >> 4) & 3) + Int((lengths >> 2) & 3) + Int(lengths & 3) + 3
            let fieldSize = wide ? 8 : 4
            var entry = start + 24
            for _ in 0..<entryCount {
                let field = entry + fieldSize
                guard field + fieldSize <= index.count else { break }
                let value =
                    (0..<fieldSize).reduce(UInt64(0)) { ($0 << 8) | UInt64(index[field + $1]) } + UInt64(boxSize)
                for byte in 0..<fieldSize {
                    index[field + byte] = UInt8(truncatingIfNeeded: value >> (8 * (fieldSize - 1 - byte)))
                }
                entry += 2 * fieldSize + numbers
            }
        }
        try file.write(index, at: offset)
    }

    /// The fields of a Segment Index box (`sidx`) that give the end of its track.
    private struct SegmentIndex {
        let bytes: [UInt8]

        /// Earliest presentation time plus every subsegment's duration, in seconds.
        var endSeconds: Double {
            let wide = bytes[8] == 1
            let timescale = Double(ISOFileAccess.uint32(bytes, at: 16))
            let earliest =
                wide
                ? (Double(ISOFileAccess.uint32(bytes, at: 20)) * 4_294_967_296
                    + Double(ISOFileAccess.uint32(bytes, at: 24)))
                : Double(ISOFileAccess.uint32(bytes, at: 20))
            let countAt = wide ? 38 : 30
            guard timescale > 0, countAt + 2 <= bytes.count else { return 0 }
            let count = Int(bytes[countAt]) << 8 | Int(bytes[countAt + 1])
            var total = earliest
            for reference in 0..<count {
                let at = countAt + 2 + 12 * reference + 4
                guard at + 4 <= bytes.count else { break }
                total += Double(ISOFileAccess.uint32(bytes, at: at))
            }
            return total / timescale
        }
    }
}
