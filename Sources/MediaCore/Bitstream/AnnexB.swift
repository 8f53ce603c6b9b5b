/// Helpers for H.264/H.265 Annex-B byte streams: NAL units separated by start codes.
public enum AnnexB {
    /// The byte ranges of the NAL units in `bytes` (start codes and trailing zero bytes excluded).
    public static func nalUnits(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var start: Int? = nil
        var index = 0
        let count = bytes.count
        while index + 2 < count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let begin = start { units.append(begin..<trimmedEnd(bytes, begin, index)) }
                index += 3
                start = index
            } else if bytes[index + 2] > 1 {
                index += 3
            } else {
                index += 1
            }
        }
        if let begin = start, begin < count { units.append(begin..<trimmedEnd(bytes, begin, count)) }
        return units.filter { !$0.isEmpty }
    }

    /// `bytes` with every NAL unit behind a four-byte start code, or nil when they hold no Annex-B unit.
    public static func withFourByteStartCodes(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.starts(with: [0, 0, 1]) || bytes.starts(with: [0, 0, 0, 1]) else { return nil }
        let units = bytes.withUnsafeBufferPointer { nalUnits(in: $0) }
        guard !units.isEmpty else { return nil }
        return units.flatMap { [0, 0, 0, 1] + bytes[$0] }
    }

    private static func trimmedEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ begin: Int, _ end: Int) -> Int {
        var end = end
        while end > begin, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    /// Decides whether a byte stream is H.264 or H.265 from its NAL unit headers; nil if it is neither.
    ///
    /// H.265 is chosen when every NAL header is a valid two-byte H.265 header (layer 0, temporal id ≥ 1)
    /// and a VPS or SPS is present; H.264 when every header is a valid H.264 one. A stream of slices
    /// with no parameter sets is still called H.264 or H.265 so that the job can say what is missing.
    static func sniffCodec(_ head: [UInt8]) -> InputContainer? {
        guard head.count >= 4, head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) else { return nil }
        let units = head.withUnsafeBufferPointer { nalUnits(in: $0) }.filter { $0.count >= 2 }
        guard !units.isEmpty else { return nil }
        var hevcValid = true
        var hevcParameterSets = false
        var h264Valid = true
        var h264Slices = false
        for unit in units {
            let b0 = head[unit.lowerBound]
            let b1 = head[unit.lowerBound + 1]
            let hevcType = Int(b0 >> 1) & 0x3F
            if b0 & 0x81 != 0 || b1 & 0xF8 != 0 || b1 & 0x07 == 0 || (hevcType > 40 && hevcType < 48) {
                hevcValid = false
            }
            if hevcType == 32 || hevcType == 33 { hevcParameterSets = true }
            let h264Type = Int(b0 & 0x1F)
            if b0 & 0x80 != 0 || h264Type == 0 || (h264Type > 20 && h264Type < 24) { h264Valid = false }
            if [1, 5, 7].contains(h264Type) { h264Slices = true }
        }
        if hevcValid && hevcParameterSets { return .hevc }
        if h264Valid && h264Slices { return .h264 }
        if hevcValid { return .hevc }
        return h264Valid ? .h264 : nil
    }
}
