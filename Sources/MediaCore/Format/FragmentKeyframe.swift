/// Where the first sample of a CMAF media segment ends: the byte range an HLS I-frame playlist gives for
/// a segment that opens with a keyframe (RFC 8216 §4.3.3.6: the `moof`, then the frame's data).
public enum FragmentKeyframe {
    /// The bytes of `segment` from its start through its first sample: the leading `moof` and the `mdat`
    /// header, then the sample's size as the `trun` (or the `tfhd` default) states it. Nil when the
    /// segment is not one `moof` of one run followed by its `mdat`. Only the `moof` and the `mdat` header
    /// are read (copied out of `segment`), not the media.
    public static func rangeEnd(in segment: UnsafeRawBufferPointer) -> Int? {
        guard segment.count >= 16 else { return nil }
        let moofSize = Int(segment.loadUnaligned(as: UInt32.self).bigEndian)
        guard moofSize >= 8, moofSize + 16 <= segment.count else { return nil }
        let head = Array(segment[0..<(moofSize + 16)])
        let walker = ISOBoxWalker(bytes: head, fileOffset: 0)
        var boxes: [ISOBox] = []
        do {
            try walker.walk(0..<moofSize, depth: 1, parent: "segment") { boxes.append($0) }
        } catch {
            return nil
        }
        let mdatSize = walker.uint32(at: moofSize)
        let mdatContent = moofSize + (mdatSize == 1 ? 16 : 8)
        guard let moof = boxes.first, moof.type == "moof", moof.end == moofSize,
            ISOBoxWalker.printable(head[(moofSize + 4)..<(moofSize + 8)]) == "mdat",
            mdatSize == 1 || Int(mdatSize) >= 8,
            let run = boxes.first(where: { $0.type == "trun" }), run.content.count >= 8
        else { return nil }
        let flags = walker.uint32(at: run.content.lowerBound) & 0xFF_FFFF
        guard flags & 0x200 != 0 else {
            return defaultSampleSize(boxes, walker).map { mdatContent + $0 }
        }
        // sample_count, then data_offset (0x1) and first_sample_flags (0x4), then the first sample's
        // duration (0x100) before its size.
        var offset = run.content.lowerBound + 8
        for flag: UInt32 in [0x1, 0x4, 0x100] where flags & flag != 0 { offset += 4 }
        guard offset + 4 <= run.end else { return nil }
        return mdatContent + Int(walker.uint32(at: offset))
    }

    /// `default_sample_size` of the `tfhd`, after the fields its flags say come first.
    private static func defaultSampleSize(_ boxes: [ISOBox], _ walker: ISOBoxWalker) -> Int? {
        guard let header = boxes.first(where: { $0.type == "tfhd" }), header.content.count >= 8 else { return nil }
        let flags = walker.uint32(at: header.content.lowerBound) & 0xFF_FFFF
        guard flags & 0x10 != 0 else { return nil }
        var offset = header.content.lowerBound + 8
        for (flag, width): (UInt32, Int) in [(0x1, 8), (0x2, 4), (0x8, 4)] where flags & flag != 0 { offset += width }
        guard offset + 4 <= header.end else { return nil }
        return Int(walker.uint32(at: offset))
    }
}
