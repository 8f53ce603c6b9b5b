import Foundation

/// Shortens the edit of tracks in an ISO file libav has written, so that frames past a given end are
/// decoded but not shown.
///
/// libav 5.1's mov muxer writes one edit a track, from the first shown frame to the end of the last
/// sample. An input whose edit list ends before its last decoded frame (iPhone HEVC recordings end on a
/// reference frame that is never shown) would thus gain a frame. The `elst` entry of the track's media
/// edit and the track's `tkhd` duration are rewritten in place; no box changes size.
public enum ISOEditEnd {
    /// Limits the shown part of each track (by `tkhd` track ID) to the seconds given, where that is
    /// shorter than its edit; tracks not named, and edits already as short, stay as they are.
    public static func limit(path: String, shown: [UInt32: Double]) throws {
        guard !shown.isEmpty else { return }
        let file = try ISOFileAccess(path: path)
        guard let movie = try file.topLevelBoxes().first(where: { $0.type == "moov" }) else {
            throw MediaError(.internalError, "the output \(path) has no 'moov' box to end its edit lists in")
        }
        var bytes = try file.read(movie.offset, count: Int(movie.size))
        let walker = ISOBoxWalker(bytes: bytes, fileOffset: movie.offset)
        var movieTimescale: UInt32 = 0
        var movieHeader: ISOBox?
        var trackHeader: (box: ISOBox, id: UInt32)?
        var trackDurations: [UInt64] = []
        var shortened = false
        try walker.walk(8..<bytes.count, depth: 2, parent: "moov") { box in
            let version = walker.uint8(at: box.content.lowerBound)
            let body = box.content.lowerBound + 4
            switch box.type {
            case "mvhd":
                movieHeader = box
                movieTimescale = walker.uint32(at: body + (version == 1 ? 16 : 8))
            case "tkhd":
                trackHeader = (box, walker.uint32(at: body + (version == 1 ? 16 : 8)))
                trackDurations.append(
                    read(at: body + (version == 1 ? 24 : 16), width: version == 1 ? 8 : 4, walker: walker))
            case "elst":
                guard let header = trackHeader, let seconds = shown[header.id], movieTimescale > 0 else { return }
                let duration = UInt64((seconds * Double(movieTimescale)).rounded())
                if shorten(elst: box, version: version, to: duration, in: &bytes, walker: walker) {
                    setDuration(of: header.box, at: version == 1 ? 24 : 16, to: duration, in: &bytes, walker: walker)
                    trackDurations[trackDurations.count - 1] = duration
                    shortened = true
                }
            default:
                break
            }
        }
        guard shortened else { return }
        if let movieHeader, let longest = trackDurations.max() {
            setDuration(
                of: movieHeader, at: walker.uint8(at: movieHeader.content.lowerBound) == 1 ? 20 : 12,
                to: longest, in: &bytes, walker: walker)
        }
        try file.write(bytes, at: movie.offset)
    }

    /// Sets the duration of the last edit that shows media (not an empty edit) when `duration` is shorter.
    private static func shorten(
        elst box: ISOBox, version: UInt8, to duration: UInt64, in bytes: inout [UInt8], walker: ISOBoxWalker
    ) -> Bool {
        let width = version == 1 ? 8 : 4
        let entrySize = 2 * width + 4
        let count = Int(walker.uint32(at: box.content.lowerBound + 4))
        let first = box.content.lowerBound + 8
        guard count > 0, first + count * entrySize <= box.end else { return false }
        guard
            let entry = (0..<count).reversed().map({ first + $0 * entrySize }).first(where: { position in
                let mediaTime = read(at: position + width, width: width, walker: walker)
                return mediaTime != (width == 8 ? UInt64.max : UInt64(UInt32.max))
            })
        else { return false }
        let empty = (0..<count).map { first + $0 * entrySize }.filter { $0 < entry }
            .reduce(UInt64(0)) { $0 + read(at: $1, width: width, walker: walker) }
        guard duration > empty, duration - empty < read(at: entry, width: width, walker: walker) else { return false }
        write(duration - empty, at: entry, width: width, in: &bytes)
        return true
    }

    /// Writes `duration` at `offset` bytes into the body (after version and flags) of a `tkhd` or `mvhd`,
    /// 8 bytes wide in version 1 boxes and 4 in version 0.
    private static func setDuration(
        of box: ISOBox, at offset: Int, to duration: UInt64, in bytes: inout [UInt8], walker: ISOBoxWalker
    ) {
        let wide = walker.uint8(at: box.content.lowerBound) == 1
        write(duration, at: box.content.lowerBound + 4 + offset, width: wide ? 8 : 4, in: &bytes)
    }

    private static func read(at position: Int, width: Int, walker: ISOBoxWalker) -> UInt64 {
        width == 8 ? walker.uint64(at: position) : UInt64(walker.uint32(at: position))
    }

    private static func write(_ value: UInt64, at position: Int, width: Int, in bytes: inout [UInt8]) {
        for index in 0..<width {
            bytes[position + index] = UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - index)))
        }
    }
}
