/// Picture order counts of an H.264 stream (ITU-T H.264 8.2.1, types 0, 1 and 2), including the reset
/// that memory management control operation 5 causes.
public struct H264PictureOrder: AnnexBPictureOrderParser {
    private var parameterSets = ParameterSetTable<H264SPS, H264PPS>(codec: "H.264")
    private var pictureCount = 0

    // State for type 0: the previous reference picture.
    private var prevRefMsb = 0
    private var prevRefLsb = 0
    private var prevRefHadMMCO5 = false
    private var prevRefWasBottomField = false
    private var prevRefTopAfterMMCO5 = 0

    // State for types 1 and 2: the previous picture.
    private var prevFrameNumOffset = 0
    private var prevFrameNum = 0
    private var prevHadMMCO5 = false

    public init() {}

    public mutating func parse(accessUnit bytes: UnsafeBufferPointer<UInt8>) throws -> AccessUnitInfo {
        try walk(accessUnit: bytes)
    }

    mutating func take(_ unit: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) throws -> NALUnitRole {
        switch Int(bytes[unit.lowerBound] & 0x1F) {
        case 7:
            parameterSets.add(sequenceSet: try H264SPS(rbsp: AnnexB.rbsp(bytes, unit)))
        case 8:
            parameterSets.add(pictureSet: try H264PPS(rbsp: AnnexB.rbsp(bytes, unit)))
        case 1, 2, 5:
            return .slice
        case 9, 12:
            return .delimiterOrFiller
        default:
            break
        }
        return .other
    }

    mutating func order(ofSlice rbsp: [UInt8]) throws -> PictureOrder {
        let (slice, sps) = try parameterSets.parseSlice { try H264SliceHeader(rbsp: rbsp, lookup: $0) }
        let (top, bottom) =
            switch sps.pocType {
            case 0: try countsType0(slice, sps)
            case 1: try countsType1(slice, sps)
            default: try countsType2(slice, sps)
            }
        var count = slice.fieldPic ? (slice.bottomField ? bottom : top) : min(top, bottom)
        if slice.hasMMCO5 {
            // 8.2.1: after operation 5 the picture's counts are taken relative to itself.
            if slice.nalRefIDC != 0 { prevRefTopAfterMMCO5 = top - count }
            count = 0
        }
        let startsPeriod = pictureCount == 0 || slice.isIDR || slice.hasMMCO5
        pictureCount += 1
        return PictureOrder(count: Int64(count), startsPeriod: startsPeriod, isKeyframe: slice.isIDR)
    }

    /// 8.2.1.1: counts from pic_order_cnt_lsb and the most significant part carried between reference pictures.
    private mutating func countsType0(_ slice: H264SliceHeader, _ sps: H264SPS) throws -> (Int, Int) {
        var prevMsb = prevRefMsb
        var prevLsb = prevRefLsb
        if slice.isIDR {
            (prevMsb, prevLsb) = (0, 0)
        } else if prevRefHadMMCO5 {
            (prevMsb, prevLsb) = (0, prevRefWasBottomField ? 0 : prevRefTopAfterMMCO5)
        }
        let maxLsb = 1 << sps.log2MaxPOCLsb
        let lsb = slice.pocLsb
        let msb = PictureOrder.mostSignificantPart(lsb: lsb, maxLsb: maxLsb, previousLsb: prevLsb, previousMsb: prevMsb)
        let top = try Self.inRange(msb + lsb, "TopFieldOrderCnt")
        let bottom = try Self.inRange(slice.fieldPic ? msb + lsb : top + slice.deltaPOCBottom, "BottomFieldOrderCnt")
        if slice.nalRefIDC != 0 {
            (prevRefMsb, prevRefLsb) = (msb, lsb)
            prevRefHadMMCO5 = slice.hasMMCO5
            prevRefWasBottomField = slice.fieldPic && slice.bottomField
        }
        return (top, bottom)
    }

    /// 8.2.1.2: counts from frame_num and the expected increments of the SPS cycle.
    private mutating func countsType1(_ slice: H264SliceHeader, _ sps: H264SPS) throws -> (Int, Int) {
        let offset = try frameNumOffset(slice, sps)
        let cycleLength = sps.offsetsForRefFrame.count
        var absFrameNum = cycleLength != 0 ? offset + slice.frameNum : 0
        if slice.nalRefIDC == 0 && absFrameNum > 0 { absFrameNum -= 1 }
        var expected = 0
        if absFrameNum > 0 {
            let cycles = (absFrameNum - 1) / cycleLength
            let inCycle = (absFrameNum - 1) % cycleLength
            // A stream can make this product exceed Int64 long before the Int32 check below could see it.
            let (cycleCounts, overflow) = cycles.multipliedReportingOverflow(by: sps.offsetsForRefFrame.reduce(0, +))
            guard !overflow else {
                throw MediaError(
                    .invalidInput,
                    "an H.264 picture order count is out of range (\(cycles) cycles of the SPS's expected deltas)")
            }
            expected = try Self.inRange(
                cycleCounts + sps.offsetsForRefFrame[0...inCycle].reduce(0, +), "expectedPicOrderCnt")
        }
        if slice.nalRefIDC == 0 { expected += sps.offsetForNonRefPic }
        let top: Int
        let bottom: Int
        if !slice.fieldPic {
            top = expected + slice.deltaPOC0
            bottom = top + sps.offsetForTopToBottomField + slice.deltaPOC1
        } else if !slice.bottomField {
            (top, bottom) = (expected + slice.deltaPOC0, expected + slice.deltaPOC0)
        } else {
            let count = expected + sps.offsetForTopToBottomField + slice.deltaPOC0
            (top, bottom) = (count, count)
        }
        rememberFrameNum(slice, offset)
        return (try Self.inRange(top, "TopFieldOrderCnt"), try Self.inRange(bottom, "BottomFieldOrderCnt"))
    }

    /// 8.2.1.3: counts equal to twice the frame number, for streams without reordering.
    private mutating func countsType2(_ slice: H264SliceHeader, _ sps: H264SPS) throws -> (Int, Int) {
        let offset = try frameNumOffset(slice, sps)
        let count: Int
        if slice.isIDR {
            count = 0
        } else {
            count = 2 * (offset + slice.frameNum) - (slice.nalRefIDC == 0 ? 1 : 0)
        }
        rememberFrameNum(slice, offset)
        return (count, count)
    }

    private func frameNumOffset(_ slice: H264SliceHeader, _ sps: H264SPS) throws -> Int {
        if slice.isIDR { return 0 }
        let prevOffset = prevHadMMCO5 ? 0 : prevFrameNumOffset
        return try Self.inRange(
            prevFrameNum > slice.frameNum ? prevOffset + sps.maxFrameNum : prevOffset, "FrameNumOffset")
    }

    /// `value` when it is in the 32-bit range that 8.2.1 requires of every count the process uses; a
    /// stream outside it is invalid, and unchecked its counts would soon overflow Int64 and trap.
    private static func inRange(_ value: Int, _ name: String) throws -> Int {
        guard (Int(Int32.min)...Int(Int32.max)).contains(value) else {
            throw MediaError(.invalidInput, "an H.264 picture order count is out of range (\(name) = \(value))")
        }
        return value
    }

    private mutating func rememberFrameNum(_ slice: H264SliceHeader, _ offset: Int) {
        prevFrameNumOffset = offset
        prevFrameNum = slice.hasMMCO5 ? 0 : slice.frameNum
        prevHadMMCO5 = slice.hasMMCO5
    }
}
