/// Where a full box that lists entries keeps its entry count, and how many bytes its entries take.
///
/// libav allocates for a table from its entry count before it reads the entries, so a 20-byte `stts`
/// that claims 2^32-1 entries made it ask for gigabytes. Each count is checked against the box that
/// holds it first: `entry_count × entry size` must fit in the box.
struct ISOTableLayout {
    /// Bytes of the content (after version and flags) that come before the entries, count included.
    var headerBytes: Int
    /// The entry count.
    var count: UInt32
    /// Bytes the entries take, from their count.
    var entryBytes: UInt64

    /// The boxes whose entry counts are checked.
    static let tableTypes: Set<String> = [
        "stss", "stps", "stco", "stts", "ctts", "co64", "stsc", "dref", "elst", "stsz", "sbgp", "saio", "trun",
        "stz2", "saiz", "tfra",
    ]

    /// The layout of the table box `box`, nil when `box` is not a table, or when it is too short to hold
    /// its entry count: a finding for the walker's recorder (libav reads the count from the bytes after
    /// the box, with a warning), and a box no check reads further.
    init?(of box: ISOBox, in walker: ISOBoxWalker) throws {
        do {
            guard let layout = try Self.layout(of: box, in: walker) else { return nil }
            self = layout
        } catch let error as TooShort {
            try walker.recorder.found(error.error)
            return nil
        }
    }

    /// A table box too short to hold its entry count.
    private struct TooShort: Error {
        let error: MediaError
    }

    private static func layout(of box: ISOBox, in walker: ISOBoxWalker) throws -> ISOTableLayout? {
        guard Self.tableTypes.contains(box.type) else { return nil }
        let content = box.content
        guard content.count >= 8 else { throw Self.tooShort(box) }
        let version = walker.uint8(at: content.lowerBound)
        let flags = walker.uint32(at: content.lowerBound) & 0xFF_FFFF
        let body = content.lowerBound + 4
        // Bytes before the count (after version and flags), and bytes per entry.
        let (countOffset, bytesPerEntry): (Int, UInt64)
        switch box.type {
        case "stss", "stps", "stco": (countOffset, bytesPerEntry) = (0, 4)
        case "stts", "ctts", "co64": (countOffset, bytesPerEntry) = (0, 8)
        case "stsc": (countOffset, bytesPerEntry) = (0, 12)
        case "dref": (countOffset, bytesPerEntry) = (0, 8)  // each entry is a box of at least 8 bytes
        case "elst": (countOffset, bytesPerEntry) = (0, version == 1 ? 20 : 12)
        case "stsz":
            guard content.count >= 12 else { throw Self.tooShort(box) }
            (countOffset, bytesPerEntry) = (4, walker.uint32(at: body) == 0 ? 4 : 0)
        case "sbgp": (countOffset, bytesPerEntry) = (version == 1 ? 8 : 4, 8)
        case "saio": (countOffset, bytesPerEntry) = (flags & 1 != 0 ? 8 : 0, version == 1 ? 8 : 4)
        case "trun":
            // Per sample: duration, size, flags and composition offset, each when its flag is set.
            (countOffset, bytesPerEntry) = (0, 4 * UInt64((flags & 0xF00).nonzeroBitCount))
        case "stz2", "saiz", "tfra":
            return try Self.packedTable(box, version: version, flags: flags, in: walker)
        default:
            return nil
        }
        guard body + countOffset + 4 <= content.upperBound else {
            throw Self.tooShort(box)
        }
        let count = walker.uint32(at: body + countOffset)
        // A run's data_offset and first_sample_flags come after its count when present.
        let runFields = box.type == "trun" ? (flags & 1 != 0 ? 4 : 0) + (flags & 4 != 0 ? 4 : 0) : 0
        return ISOTableLayout(
            headerBytes: countOffset + 4 + runFields, count: count, entryBytes: UInt64(count) * bytesPerEntry)
    }

    private init(headerBytes: Int, count: UInt32, entryBytes: UInt64) {
        self.headerBytes = headerBytes
        self.count = count
        self.entryBytes = entryBytes
    }

    /// Tables whose entries are not a whole number of bytes each, or whose entry size the box states.
    private static func packedTable(_ box: ISOBox, version: UInt8, flags: UInt32, in walker: ISOBoxWalker) throws
        -> ISOTableLayout
    {
        let body = box.content.lowerBound + 4
        let available = box.content.upperBound - body
        switch box.type {
        case "stz2":
            guard available >= 8 else { throw Self.tooShort(box) }
            let fieldBits = UInt64(walker.uint8(at: body + 3))
            guard [4, 8, 16].contains(fieldBits) else {
                throw MediaError(.invalidInput, "the 'stz2' box has sample sizes of \(fieldBits) bits (4, 8 or 16)")
            }
            let count = walker.uint32(at: body + 4)
            return ISOTableLayout(headerBytes: 8, count: count, entryBytes: (UInt64(count) * fieldBits + 7) / 8)
        case "saiz":
            let typeBytes = flags & 1 != 0 ? 8 : 0
            guard available >= typeBytes + 5 else { throw Self.tooShort(box) }
            let defaultSize = walker.uint8(at: body + typeBytes)
            let count = walker.uint32(at: body + typeBytes + 1)
            return ISOTableLayout(
                headerBytes: typeBytes + 5, count: count, entryBytes: defaultSize == 0 ? UInt64(count) : 0)
        default:  // tfra
            guard available >= 12 else { throw Self.tooShort(box) }
            let lengths = walker.uint32(at: body + 4)
            let fieldBytes = (0..<3).reduce(UInt64(0)) { $0 + UInt64((lengths >> (2 * UInt32($1))) & 3) + 1 }
            let count = walker.uint32(at: body + 8)
            return ISOTableLayout(
                headerBytes: 12, count: count, entryBytes: UInt64(count) * ((version == 1 ? 16 : 8) + fieldBytes))
        }
    }

    /// Checks that the entries fit in the box. libav reads a table's entries on past its box, into the
    /// boxes that follow, and fails only at the end of the file: entries that fit in the rest of the file
    /// are a finding for the walker's recorder (libav passes them with a warning), entries that do not
    /// are `invalid_input` in any case (libav fails too, after allocating for them all).
    func check(_ box: ISOBox, in walker: ISOBoxWalker) throws {
        let available = box.content.count - 4 - headerBytes
        guard available >= 0 else { return try walker.recorder.found(Self.tooShort(box).error) }
        guard entryBytes > UInt64(available) else { return }
        let at = walker.fileOffset + Int64(box.start)
        let problem =
            "the '\(box.type)' box declares \(count) entries, \(entryBytes) bytes of them, but holds only "
            + "\(available) bytes of entries (at byte \(at))"
        let entriesStart = walker.fileOffset + Int64(box.content.lowerBound + 4 + headerBytes)
        guard entryBytes <= UInt64(max(0, walker.fileSize - entriesStart)) else {
            throw MediaError(.invalidInput, problem + ", more than the rest of the file holds")
        }
        try walker.recorder.found(
            MediaError(.invalidInput, problem + "; libav reads the rest from the bytes that follow it"))
    }

    /// How many whole entries of `bytesPerEntry` bytes the box holds after `headerBytes` (of the content
    /// after version and flags): what this check reads of a table that claims more.
    static func entriesHeld(in box: ISOBox, headerBytes: Int, bytesPerEntry: Int) -> Int {
        max(0, box.content.count - 4 - headerBytes) / max(1, bytesPerEntry)
    }

    private static func tooShort(_ box: ISOBox) -> TooShort {
        TooShort(error: MediaError(.invalidInput, "the '\(box.type)' box is too short to hold its entry count"))
    }
}
