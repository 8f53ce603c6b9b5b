/// Picture order counts of an H.265 stream (ITU-T H.265 8.3.1).
///
/// The most significant part is carried from the previous picture with TemporalId 0 that is not a
/// RASL, RADL or sub-layer non-reference picture (prevTid0Pic), and reset to 0 at an IRAP picture
/// whose NoRaslOutputFlag is 1: an IDR or BLA picture, the first picture, or a CRA picture after an
/// end-of-sequence NAL unit.
public struct HEVCPictureOrder: AnnexBPictureOrderParser {
    private var videoSets: Set<Int> = []
    private var parameterSets = ParameterSetTable<HEVCSPS, HEVCPPS>(codec: "H.265")
    private var pictureCount = 0
    private var afterEndOfSequence = false
    private var prevTid0Msb = 0
    private var prevTid0Lsb = 0

    public init() {}

    public mutating func parse(accessUnit bytes: UnsafeBufferPointer<UInt8>) throws -> AccessUnitInfo {
        try walk(accessUnit: bytes)
    }

    mutating func take(_ unit: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) throws -> NALUnitRole {
        guard unit.count >= 2 else { return .skipped }
        let type = Int(bytes[unit.lowerBound] >> 1) & 0x3F
        let layer = (Int(bytes[unit.lowerBound] & 1) << 5) | Int(bytes[unit.lowerBound + 1] >> 3)
        if type == 35 || type == 38 { return .delimiterOrFiller }
        guard layer == 0 else { return .other }
        switch type {
        case 32:
            videoSets.insert(try HEVCVPS(rbsp: AnnexB.rbsp(bytes, unit)).id)
        case 33:
            parameterSets.add(sequenceSet: try HEVCSPS(rbsp: AnnexB.rbsp(bytes, unit)))
        case 34:
            parameterSets.add(pictureSet: try HEVCPPS(rbsp: AnnexB.rbsp(bytes, unit)))
        case 36:
            afterEndOfSequence = true
        case 0...9, 16...21:
            return .slice
        default:
            break
        }
        return .other
    }

    mutating func order(ofSlice rbsp: [UInt8]) throws -> PictureOrder {
        let (slice, sps) = try parameterSets.parseSlice { lookup in
            try HEVCSliceHeader(rbsp: rbsp) { ppsID in
                let (pps, sps) = try lookup(ppsID)
                guard videoSets.contains(sps.vpsID) else {
                    throw MediaError(
                        .missingParameterSets,
                        "an H.265 slice refers to video parameter set \(sps.vpsID), which was not sent")
                }
                return (pps, sps)
            }
        }
        let type = slice.nalType
        let isIRAP = (16...23).contains(type)
        let isIDROrBLA = (16...20).contains(type)
        let noRaslOutput = isIRAP && (isIDROrBLA || pictureCount == 0 || afterEndOfSequence)
        let lsb = slice.pocLsb
        let msb =
            noRaslOutput
            ? 0
            : PictureOrder.mostSignificantPart(
                lsb: lsb, maxLsb: 1 << sps.log2MaxPOCLsb, previousLsb: prevTid0Lsb, previousMsb: prevTid0Msb)
        let isLeading = (6...9).contains(type)
        let isSubLayerNonReference = type <= 14 && type % 2 == 0
        if slice.temporalID == 0 && !isLeading && !isSubLayerNonReference {
            (prevTid0Msb, prevTid0Lsb) = (msb, lsb)
        }
        let startsPeriod = noRaslOutput || pictureCount == 0
        pictureCount += 1
        afterEndOfSequence = false
        return PictureOrder(count: Int64(msb + lsb), startsPeriod: startsPeriod, isKeyframe: isIRAP)
    }
}
