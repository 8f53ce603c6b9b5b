/// Checks a `moov` box read into memory before libav parses it.
///
/// Finds what libav would accept and then turn into a wrong answer: a movie without a header or with a
/// zero timescale (libav takes 1), tables whose entry counts do not fit in their boxes, samples that lie
/// past the end of the file; each is a finding for the walker's recorder (refused, or salvaged with a
/// warning). Refuses in any case what would make libav allocate out of proportion or read what this
/// check never saw: more tracks than the input policy allows, a table whose entries the rest of the file
/// could not hold, a compressed movie header (`cmov`).
struct ISOMovieChecker {
    /// The whole `moov` box, header included, with the file offset of its first byte.
    let walker: ISOBoxWalker
    /// Where the box's content starts in the buffer: after an 8- or 16-byte header.
    let contentStart: Int
    let fileSize: Int64
    /// Most `trak` boxes accepted; libav makes a stream of each.
    let maxTracks: Int

    /// What the fragments of the file need to know about the movie.
    struct Summary {
        /// Default sample sizes from the `trex` boxes, by track ID.
        var defaultSampleSizes: [UInt32: UInt32] = [:]
        /// The stream index libav gives each track (the order of the `trak` boxes), by track ID.
        var streams: [UInt32: Int] = [:]
    }

    func check() throws -> Summary {
        var summary = Summary()
        var sawMovieHeader = false
        var trackCount = 0
        var openTracks: [(end: Int, index: Int, tables: ISOTrackTables)] = []
        func closeTracks(before position: Int) throws {
            while let track = openTracks.last, track.end <= position {
                openTracks.removeLast()
                try track.tables.checkExtents(in: walker, track: track.index)
            }
        }
        try walker.walk(contentStart..<walker.bytes.count, depth: 2, parent: "moov") { box in
            try closeTracks(before: box.start)
            try ISOTableLayout(of: box, in: walker)?.check(box, in: walker)
            switch box.type {
            case "trak":
                guard trackCount < maxTracks else {
                    throw MediaError(
                        .invalidInput, "the file has more than \(maxTracks) tracks ('trak' boxes), over the limit")
                }
                openTracks.append((box.end, trackCount, ISOTrackTables()))
                trackCount += 1
            case "mvhd", "mdhd":
                if box.type == "mvhd", box.depth == 2 { sawMovieHeader = true }
                try checkTimescale(box)
            case "cmov":
                // libav would inflate it and read tables that this check never saw.
                throw MediaError(
                    .unsupportedFormat, "the movie header is compressed ('cmov'), which mediad does not read")
            case "tkhd":
                if box.depth == 3, box.content.count >= 24, !openTracks.isEmpty {
                    let version = walker.uint8(at: box.content.lowerBound)
                    let trackID = walker.uint32(at: box.content.lowerBound + (version == 1 ? 20 : 12))
                    summary.streams[trackID] = openTracks[openTracks.count - 1].index
                }
            case "trex":
                if box.content.count >= 20 {
                    let trackID = walker.uint32(at: box.content.lowerBound + 4)
                    summary.defaultSampleSizes[trackID] = walker.uint32(at: box.content.lowerBound + 16)
                }
            default:
                if !openTracks.isEmpty { openTracks[openTracks.count - 1].tables.record(box, in: walker) }
            }
        }
        try closeTracks(before: .max)
        if !sawMovieHeader {
            try walker.recorder.found(
                MediaError(.invalidInput, "the 'moov' box has no 'mvhd' (movie header), so its timing is unknown"))
        }
        return summary
    }

    /// Finds a zero timescale in `mvhd` or `mdhd`: no timestamp of the file can be trusted (libav reads
    /// the times as seconds, a timescale of 1).
    private func checkTimescale(_ box: ISOBox) throws {
        let version = box.content.isEmpty ? 0 : walker.uint8(at: box.content.lowerBound)
        let position = box.content.lowerBound + (version == 1 ? 20 : 12)
        guard position + 4 <= box.end else {
            return try walker.recorder.found(MediaError(.invalidInput, "the '\(box.type)' box is too short"))
        }
        if walker.uint32(at: position) == 0 {
            try walker.recorder.found(
                MediaError(
                    .invalidInput,
                    "the '\(box.type)' box has a timescale of 0, so no timestamp can be trusted "
                        + "(libav reads its times as seconds)"))
        }
    }
}
