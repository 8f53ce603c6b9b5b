/// One box found inside a box read into memory: its type, where it lies, and how deep it is nested.
struct ISOBox {
    let type: String
    /// Index in the buffer of the box's first header byte.
    let start: Int
    /// Indices in the buffer of the box's content, after its header.
    let content: Range<Int>
    /// 1 for a top-level box, 2 for a box inside it, and so on.
    let depth: Int

    var end: Int { content.upperBound }
}

/// Visits the boxes inside a box read into memory, and the boxes inside those, in file order.
///
/// The walk keeps its own stack instead of recursing, and refuses nesting deeper than `maxDepth`:
/// a 2 MB file can nest 200,000 boxes, which overflowed the thread's stack when each level was a call.
/// Real files nest fewer than a dozen levels; libav's own reader stops at about as many.
///
/// A box that claims more bytes than its parent holds is a finding for the `recorder`; salvaged, it is
/// read as libav reads it: cut to what its parent has left, and a box smaller than its own header ends
/// the parent's content, a size of 0 runs to the parent's end. A box read into memory cut short by the
/// end of the file (`isCut`) is walked up to the first box the cut reaches, which is not visited.
struct ISOBoxWalker {
    /// The deepest nesting accepted, counting the top-level box as level 1.
    static let maxDepth = 32

    /// Boxes whose content is a sequence of boxes that libav reads and mediad checks.
    static let containerTypes: Set<String> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf", "mfra", "sinf", "schi",
    ]

    let bytes: [UInt8]
    /// The file offset of `bytes[0]`, for messages.
    let fileOffset: Int64
    /// The size of the whole file, which bounds what libav can read for a table that runs past its box.
    let fileSize: Int64
    let recorder: DamageRecorder

    init(bytes: [UInt8], fileOffset: Int64, fileSize: Int64, recorder: DamageRecorder) {
        self.bytes = bytes
        self.fileOffset = fileOffset
        self.fileSize = fileSize
        self.recorder = recorder
    }

    /// A strict walker over boxes mediad wrote itself: any bad size throws.
    init(bytes: [UInt8], fileOffset: Int64) {
        self.init(
            bytes: bytes, fileOffset: fileOffset, fileSize: fileOffset + Int64(bytes.count),
            recorder: DamageRecorder(policy: .refuse))
    }

    /// Whether the box in `bytes` claims more than the file has left (its end is the end of the file).
    var isCut: Bool {
        guard bytes.count >= 8 else { return false }
        let size = UInt64(uint32(at: 0))
        let claimed = size == 1 && bytes.count >= 16 ? uint64(at: 8) : size
        return claimed > UInt64(bytes.count)
    }

    /// Calls `visit` for every box in `bytes[range]` (whose own depth is `depth - 1`) and, depth first,
    /// for the boxes inside each container box.
    func walk(_ range: Range<Int>, depth: Int, parent: String, visit: (ISOBox) throws -> Void) throws {
        let cut = isCut
        var pending: [(range: Range<Int>, depth: Int, parent: String)] = [(range, depth, parent)]
        while var level = pending.popLast() {
            guard level.range.count >= 8 else { continue }
            guard
                let box = try header(
                    at: level.range.lowerBound, in: level.range, depth: level.depth, parent: level.parent, cut: cut)
            else {
                // The end of the file cuts this box: nothing after it is whole.
                if level.range.upperBound == bytes.count && cut { return }
                continue
            }
            level.range = box.end..<level.range.upperBound
            pending.append(level)
            try visit(box)
            if Self.containerTypes.contains(box.type) {
                guard box.depth < Self.maxDepth else {
                    throw MediaError(
                        .invalidInput,
                        "the boxes at byte \(fileOffset + Int64(box.start)) are nested more than \(Self.maxDepth) "
                            + "levels deep")
                }
                pending.append((box.content, box.depth + 1, box.type))
            }
        }
    }

    /// Reads the header of the box at `start`, which must end inside `parentRange`; nil when the box
    /// ends the parent's content as libav reads it (salvaged), or is cut by the end of the file.
    private func header(at start: Int, in parentRange: Range<Int>, depth: Int, parent: String, cut: Bool) throws
        -> ISOBox?
    {
        let type = Self.printable(bytes[(start + 4)..<(start + 8)])
        var size = UInt64(uint32(at: start))
        var headerSize = 8
        if size == 1, start + 16 <= parentRange.upperBound {
            size = uint64(at: start + 8)
            headerSize = 16
        }
        let left = UInt64(parentRange.upperBound - start)
        if size >= UInt64(headerSize), size <= left {
            return ISOBox(type: type, start: start, content: (start + headerSize)..<(start + Int(size)), depth: depth)
        }
        if size > left, cut, parentRange.upperBound == bytes.count { return nil }
        let at = fileOffset + Int64(start)
        let problem = "the '\(type)' box inside '\(parent)' at byte \(at) has a bad size \(size)"
        if size == 0 {
            try recorder.found(MediaError(.invalidInput, problem))
            return ISOBox(
                type: type, start: start, content: (start + headerSize)..<parentRange.upperBound, depth: depth)
        }
        if size < UInt64(headerSize) {
            try recorder.found(
                MediaError(.invalidInput, problem + "; the rest of its parent (\(left) bytes) was not read"))
            return nil
        }
        try recorder.found(
            MediaError(.invalidInput, problem + ", more than the \(left) bytes its parent has left; read as those"))
        return ISOBox(type: type, start: start, content: (start + headerSize)..<parentRange.upperBound, depth: depth)
    }

    func uint8(at index: Int) -> UInt8 { bytes[index] }

    func uint32(at index: Int) -> UInt32 {
        bytes[index..<index + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    func uint64(at index: Int) -> UInt64 {
        bytes[index..<index + 8].reduce(0) { ($0 << 8) | UInt64($1) }
    }

    /// The box's four-character type as text, or `?` when it is not printable ASCII.
    static func printable(_ type: ArraySlice<UInt8>) -> String {
        type.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? String(decoding: type, as: UTF8.self) : "?"
    }
}
