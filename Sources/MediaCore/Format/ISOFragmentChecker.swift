/// Checks that the samples a movie fragment (`moof`) describes lie inside the file, and the entry counts
/// of the tables in it and in a fragment index (`mfra`).
///
/// A fragment's `trun` boxes place samples relative to a base offset (the `moof` itself, an explicit
/// `tfhd` offset, or where the previous run ended), with sizes from the run, the `tfhd` defaults or the
/// `trex` defaults of the movie. A run whose data lies past the end of the file is `truncated_input`, as
/// for chunks of a non-fragmented track (refused, or recorded for the job's warnings when salvaged).
/// Offsets are worked out as libav's reader works them out. The samples each run declares are counted
/// per stream: once reading stops at a cut, libav's index of a fragmented file no longer says them.
struct ISOFragmentChecker {
    /// The whole `moof` box, header included, with the file offset of its first byte.
    let walker: ISOBoxWalker
    /// Where the box's content starts in the buffer: after an 8- or 16-byte header.
    let contentStart: Int
    let fileSize: Int64
    /// Default sample sizes from the movie's `trex` boxes, by track ID.
    let defaultSampleSizes: [UInt32: UInt32]
    /// libav's stream index of each track, by track ID.
    let streams: [UInt32: Int]

    private struct FragmentTrack {
        var trackID: UInt32 = 0
        var base: Int64 = 0
        var defaultSampleSize: UInt32?
    }

    func check() throws {
        let moofStart = walker.fileOffset
        var implicitOffset = moofStart
        var track = FragmentTrack()
        let type = ISOBoxWalker.printable(walker.bytes[4..<8])
        try walker.walk(contentStart..<walker.bytes.count, depth: 2, parent: type) { box in
            try ISOTableLayout(of: box, in: walker)?.check(box, in: walker)
            switch box.type {
            case "traf":
                track = FragmentTrack()
            case "tfhd":
                track = try header(box, moofStart: moofStart, implicitOffset: implicitOffset)
            case "trun":
                implicitOffset = try checkRun(box, of: track)
            default:
                break
            }
        }
    }

    /// Reads a track fragment header (ISO/IEC 14496-12 8.8.7).
    private func header(_ box: ISOBox, moofStart: Int64, implicitOffset: Int64) throws -> FragmentTrack {
        guard box.content.count >= 4 else {
            try walker.recorder.found(MediaError(.invalidInput, "the 'tfhd' box is too short for its flags"))
            return FragmentTrack()
        }
        let flags = walker.uint32(at: box.content.lowerBound) & 0xFF_FFFF
        var position = box.content.lowerBound + 4
        func field(_ width: Int) throws -> Int {
            guard position + width <= box.end else {
                try walker.recorder.found(
                    MediaError(.invalidInput, "the 'tfhd' box is too short for the fields its flags announce"))
                throw FieldMissing()
            }
            defer { position += width }
            return position
        }
        var track = FragmentTrack()
        track.base = flags & 0x2_0000 != 0 ? moofStart : implicitOffset
        do {
            try readFields(into: &track, flags: flags, field: field)
        } catch is FieldMissing {}
        return track
    }

    /// A `tfhd` field its flags announce is not in the box (salvaged: the fields before it are kept).
    private struct FieldMissing: Error {}

    private func readFields(into track: inout FragmentTrack, flags: UInt32, field: (Int) throws -> Int) throws {
        track.trackID = walker.uint32(at: try field(4))
        if flags & 0x1 != 0 {
            let base = walker.uint64(at: try field(8))
            guard base <= UInt64(Int64.max) else {
                try walker.recorder.found(
                    MediaError(.invalidInput, "the 'tfhd' box has a base data offset of \(base), past any file"))
                track.base = .max
                return
            }
            track.base = Int64(base)
        }
        if flags & 0x2 != 0 { _ = try field(4) }  // sample_description_index
        if flags & 0x8 != 0 { _ = try field(4) }  // default_sample_duration
        if flags & 0x10 != 0 { track.defaultSampleSize = walker.uint32(at: try field(4)) }
    }

    /// Checks one track run (8.8.8) and returns where its data ends, the base of a run without offset.
    private func checkRun(_ box: ISOBox, of track: FragmentTrack) throws -> Int64 {
        // Too short for its count: a finding of `ISOTableLayout` already.
        guard box.content.count >= 8 else { return track.base }
        let flags = walker.uint32(at: box.content.lowerBound) & 0xFF_FFFF
        let declared = Int(walker.uint32(at: box.content.lowerBound + 4))
        if let stream = streams[track.trackID] { walker.recorder.declare(samples: declared, ofStream: stream) }
        var position = box.content.lowerBound + 8
        var dataOffset: Int64 = 0
        if flags & 0x1 != 0 {
            dataOffset = Int64(Int32(bitPattern: walker.uint32(at: position)))
            position += 4
        }
        if flags & 0x4 != 0 { position += 4 }  // first_sample_flags
        let stride = 4 * (flags & 0xF00).nonzeroBitCount
        // The samples whose fields the box holds (it may claim more, see `ISOTableLayout`).
        let count = stride == 0 ? declared : min(declared, max(0, box.end - position) / stride)
        let sizeField = flags & 0x100 != 0 ? 4 : 0
        let (start, beyondAnyFile) = track.base.addingReportingOverflow(dataOffset)
        var bytes: UInt64
        if flags & 0x200 != 0 {
            bytes = (0..<count).reduce(UInt64(0)) { $0 + UInt64(walker.uint32(at: position + stride * $1 + sizeField)) }
        } else {
            let size = track.defaultSampleSize ?? defaultSampleSizes[track.trackID] ?? 0
            bytes = UInt64(count) * UInt64(size)
            if size == 0, count > fileSize {
                throw MediaError(
                    .invalidInput,
                    "the 'trun' box at byte \(walker.fileOffset + Int64(box.start)) declares \(count) samples, "
                        + "more than the file's \(fileSize) bytes could hold")
            }
        }
        guard bytes > 0 else { return start }
        guard !beyondAnyFile, start >= 0, bytes <= UInt64(fileSize), start <= fileSize - Int64(bytes) else {
            try walker.recorder.found(
                MediaError(
                    !beyondAnyFile && start < 0 ? .invalidInput : .truncatedInput,
                    "the 'trun' box at byte \(walker.fileOffset + Int64(box.start)) declares sample data at bytes "
                        + "\(Int128(track.base) + Int128(dataOffset)) to "
                        + "\(Int128(track.base) + Int128(dataOffset) + Int128(bytes)), but the file has only "
                        + "\(fileSize) bytes"))
            return beyondAnyFile ? fileSize : start &+ Int64(clamping: bytes)
        }
        return start + Int64(bytes)
    }
}
