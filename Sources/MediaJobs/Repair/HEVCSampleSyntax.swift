import MediaCore

/// H.265 NAL units (ITU-T H.265 7.3, 7.4) as a repair tells them from other bytes.
///
/// Every unit is of the base layer with a TemporalId in range; a slice segment must name a known picture
/// parameter set, and the first one of a picture must parse through its picture order count with a valid
/// slice type (I for an IRAP picture).
struct HEVCSampleSyntax: NALSyntax {
    private var videoSets: Set<Int> = []
    private var sequenceSets: [Int: HEVCSPS] = [:]
    private var pictureSets: [Int: HEVCPPS] = [:]

    let codecName = "H.265"

    /// NAL unit types the standard leaves unspecified, taken as trailing units of a sample.
    private let unspecifiedTypes: Set<Int>

    /// Starts from the parameter sets of the reference's configuration record; `unspecifiedTypes` are the
    /// unspecified NAL unit types the reference's samples carry.
    init(parameterSets: [[UInt8]], unspecifiedTypes: Set<Int> = []) {
        self.unspecifiedTypes = unspecifiedTypes
        for unit in parameterSets {
            unit.withUnsafeBufferPointer { take(parameterSet: $0) }
        }
    }

    private static func type(_ unit: UnsafeBufferPointer<UInt8>) -> Int { Int(unit[0] >> 1) & 0x3F }

    func role(of unit: UnsafeBufferPointer<UInt8>) -> NALRole? {
        guard unit.count >= 2, unit[0] & 0x80 == 0 else { return nil }
        let layer = (Int(unit[0] & 1) << 5) | Int(unit[1] >> 3)
        let temporalIDPlus1 = Int(unit[1] & 7)
        guard layer == 0, temporalIDPlus1 >= 1 else { return nil }
        let type = Self.type(unit)
        switch type {
        case 0...9, 16...21:
            // IRAP pictures have TemporalId 0.
            if type >= 16 && temporalIDPlus1 != 1 { return nil }
            return slice(unit, type: type)
        case 32:
            return temporalIDPlus1 == 1 && (try? HEVCVPS(rbsp: NALChecks.rbsp(unit))) != nil ? .leading : nil
        case 33:
            return temporalIDPlus1 == 1 && (try? HEVCSPS(rbsp: NALChecks.rbsp(unit))) != nil ? .leading : nil
        case 34:
            return (try? HEVCPPS(rbsp: NALChecks.rbsp(unit))) != nil ? .leading : nil
        case 35:
            // pic_type (3 bits) and the stop bit.
            return unit.count == 3 && unit[2] & 0x1F == 0x10 ? .leading : nil
        case 36, 37:
            return unit.count == 2 && temporalIDPlus1 == 1 ? .trailing : nil
        case 38:
            return NALChecks.isFiller(unit, headerSize: 2) ? .trailing : nil
        case 39:
            return NALChecks.isSEI(unit, headerSize: 2) ? .leading : nil
        case 40:
            return NALChecks.isSEI(unit, headerSize: 2) ? .trailing : nil
        case let type where unspecifiedTypes.contains(type):
            return .trailing
        default:
            return nil
        }
    }

    private func slice(_ unit: UnsafeBufferPointer<UInt8>, type: Int) -> NALRole? {
        let rbsp = NALChecks.rbsp(unit)
        var reader = BitReader(rbsp: rbsp)
        let isIRAP = type >= 16
        guard (try? reader.skip(16)) != nil, let first = try? reader.flag() else { return nil }
        if isIRAP { guard (try? reader.skip(1)) != nil else { return nil } }  // no_output_of_prior_pics_flag
        guard let ppsID = try? reader.ue(), let pps = pictureSets[Int(ppsID)],
            let sps = sequenceSets[pps.spsID], videoSets.contains(sps.vpsID)
        else { return nil }
        guard first else { return .laterSlice }
        // The first segment has no dependent_slice_segment_flag or address; then the extra bits and the type.
        guard (try? reader.skip(pps.numExtraSliceHeaderBits)) != nil, let sliceType = try? reader.ue(),
            sliceType <= 2, !isIRAP || sliceType == 2
        else { return nil }
        guard (try? HEVCSliceHeader(rbsp: rbsp, lookup: lookup)) != nil else { return nil }
        return .firstSlice(keyframe: isIRAP)
    }

    private func lookup(_ ppsID: Int) throws -> (HEVCPPS, HEVCSPS) {
        guard let pps = pictureSets[ppsID], let sps = sequenceSets[pps.spsID] else {
            throw MediaError(.missingParameterSets, "no H.265 picture parameter set \(ppsID)")
        }
        return (pps, sps)
    }

    mutating func take(parameterSet unit: UnsafeBufferPointer<UInt8>) {
        guard unit.count >= 2 else { return }
        let rbsp = NALChecks.rbsp(unit)
        switch Self.type(unit) {
        case 32: if let vps = try? HEVCVPS(rbsp: rbsp) { videoSets.insert(vps.id) }
        case 33: if let sps = try? HEVCSPS(rbsp: rbsp) { sequenceSets[sps.id] = sps }
        case 34: if let pps = try? HEVCPPS(rbsp: rbsp) { pictureSets[pps.id] = pps }
        default: break
        }
    }

    func beginsSample(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard prefix.count >= 2, prefix[0] & 0x81 == 0, prefix[1] & 0xF8 == 0, prefix[1] & 7 != 0 else { return false }
        let type = Self.type(prefix)
        switch type {
        case 0...9, 16...21:
            if case .firstSlice = slice(prefix, type: type) { return true }
            return false
        case 32, 33, 34, 39: return true
        default: return false
        }
    }

    func isReadWhole(_ header: UInt8) -> Bool { [38, 39, 40].contains(Int(header >> 1) & 0x3F) }

    func isParameterSet(_ unit: UnsafeBufferPointer<UInt8>) -> Bool {
        unit.count >= 2 && (32...34).contains(Self.type(unit))
    }
}
