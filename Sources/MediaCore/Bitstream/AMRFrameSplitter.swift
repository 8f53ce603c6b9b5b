/// Splits AMR-NB samples that hold several frames (as 3GP files store them) into one frame per packet,
/// which libav's ISO muxer requires.
public enum AMRFrameSplitter {
    /// Bytes of a storage-format AMR-NB frame by frame type, header byte included (RFC 4867, 5.3).
    static let frameSizes = [13, 14, 16, 18, 20, 21, 27, 32, 6, 1, 1, 1, 1, 1, 1, 1]
    /// Samples per AMR-NB frame: 20 ms at 8 kHz.
    public static let samplesPerFrame: Int64 = 160

    /// The byte ranges of the frames in one sample; nil if not even its first frame is whole.
    ///
    /// Bytes after the last whole frame (padding some recorders add, or a frame the end of a damaged file
    /// cuts) stay with that frame, whose decoder ignores them: left as one packet, the sample decoded to its
    /// first frame alone, four fifths of a phone recording's audio lost.
    public static func frames(in data: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var offset = 0
        while offset < data.count {
            let size = frameSizes[Int(data[offset] >> 3) & 0x0F]
            guard offset + size <= data.count else { break }
            ranges.append(offset..<offset + size)
            offset += size
        }
        guard let last = ranges.last else { return nil }
        ranges[ranges.count - 1] = last.lowerBound..<data.count
        return ranges
    }
}
