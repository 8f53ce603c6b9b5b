import MediaCore

/// The top-level boxes of a recording to repair, read leniently: a box that runs past the end of the file
/// is cut at it, and an `mdat` of size 0 (what a recorder writes until it can fill in the size) runs to the
/// end of the file.
///
/// The walk stops at the first header that cannot be a box (an impossible size, a type that is not text):
/// what follows cannot be placed, and a repair walks only media data it can find.
struct RecordingLayout {
    /// One top-level box.
    struct Box {
        let type: String
        let offset: Int64
        let headerSize: Int
        /// Bytes the box occupies in the file (cut at the end of the file).
        let size: Int64
        /// Whether the whole box, as its header states it, is in the file.
        let isComplete: Bool

        var end: Int64 { offset + size }
        var content: Range<Int64> { (offset + Int64(headerSize))..<end }
    }

    /// The most top-level boxes read: far more than any recording has (a fragment is two), far fewer than
    /// a hostile file of empty boxes could declare.
    static let maxBoxes = 1 << 20

    let fileSize: Int64
    let boxes: [Box]
    /// Where the walk stopped before the end of the file because no box could start there, if it did.
    let unreadableFrom: Int64?

    init(reading window: ByteWindow) throws {
        fileSize = window.size
        var boxes: [Box] = []
        var offset: Int64 = 0
        var stopped: Int64? = nil
        while offset < fileSize {
            guard boxes.count < Self.maxBoxes else {
                throw MediaError(.invalidInput, "the file has more than \(Self.maxBoxes) top-level boxes")
            }
            guard let box = try Self.box(at: offset, in: window) else {
                stopped = offset
                break
            }
            boxes.append(box)
            offset = box.end
        }
        self.boxes = boxes
        unreadableFrom = stopped
    }

    /// The box whose header starts at `offset`, or nil when none can.
    private static func box(at offset: Int64, in window: ByteWindow) throws -> Box? {
        let left = window.size - offset
        guard left >= 8 else { return nil }
        let header = try window.bytes(at: offset, count: Int(min(16, left)))
        guard header[4..<8].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let type = String(decoding: header[4..<8], as: UTF8.self)
        var declared = Int64(header[0..<4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
        var headerSize = 8
        if declared == 1 {
            guard header.count == 16 else { return nil }
            let wide = header[8..<16].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
            // A size past Int64 is as good as "to the end of the file": it is cut there like any other.
            declared = wide > UInt64(Int64.max) ? Int64.max : Int64(wide)
            headerSize = 16
        } else if declared == 0 {
            declared = left
        }
        guard declared >= Int64(headerSize) else { return nil }
        return Box(
            type: type, offset: offset, headerSize: headerSize, size: min(declared, left), isComplete: declared <= left)
    }

    /// The content of every `mdat`, in file order.
    var mediaData: [Range<Int64>] { boxes.filter { $0.type == "mdat" }.map(\.content) }

    /// A complete `moov` before the first `moof`, the movie header a fragmented file needs.
    var hasMovie: Bool {
        for box in boxes {
            if box.type == "moof" { return false }
            if box.type == "moov" { return box.isComplete }
        }
        return false
    }

    var hasFragments: Bool { boxes.contains { $0.type == "moof" } }

    /// Whether every box is complete and nothing follows the last one: a file whose structure is whole.
    var isWhole: Bool { unreadableFrom == nil && boxes.allSatisfy(\.isComplete) }
}
