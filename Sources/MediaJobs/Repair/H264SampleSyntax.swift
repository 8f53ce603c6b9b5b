import MediaCore

/// H.264 NAL units (ITU-T H.264 7.3, 7.4) as a repair tells them from other bytes.
///
/// Slices must parse against the parameter sets of the reference's `avcC` (or sent in the stream since):
/// a known `pic_parameter_set_id`, a valid slice type, an IDR picture coded as I slices with
/// `nal_ref_idc` set, and the rest of the header up to `dec_ref_pic_marking()` consistent.
struct H264SampleSyntax: NALSyntax {
    private var sequenceSets: [Int: H264SPS] = [:]
    private var pictureSets: [Int: H264PPS] = [:]

    let codecName = "H.264"

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

    func role(of unit: UnsafeBufferPointer<UInt8>) -> NALRole? {
        guard let header = unit.first, header & 0x80 == 0 else { return nil }
        let referenceIDC = (header >> 5) & 3
        switch header & 0x1F {
        case 1, 5:
            return slice(unit)
        case 6:
            return referenceIDC == 0 && NALChecks.isSEI(unit, headerSize: 1) ? .leading : nil
        case 7:
            return referenceIDC != 0 && (try? H264SPS(rbsp: NALChecks.rbsp(unit))) != nil ? .leading : nil
        case 8:
            return referenceIDC != 0 && (try? H264PPS(rbsp: NALChecks.rbsp(unit))) != nil ? .leading : nil
        case 9:
            // primary_pic_type (3 bits) and the stop bit.
            return unit.count == 2 && unit[1] & 0x1F == 0x10 ? .leading : nil
        case 10, 11:
            return unit.count == 1 ? .trailing : nil
        case 12:
            return referenceIDC == 0 && NALChecks.isFiller(unit, headerSize: 1) ? .trailing : nil
        case let type where unspecifiedTypes.contains(Int(type)):
            return .trailing
        default:
            return nil
        }
    }

    private func slice(_ unit: UnsafeBufferPointer<UInt8>) -> NALRole? {
        let header = unit[0]
        let isIDR = header & 0x1F == 5
        if isIDR && header & 0x60 == 0 { return nil }
        let rbsp = NALChecks.rbsp(unit)
        var reader = BitReader(rbsp: rbsp)
        guard (try? reader.skip(8)) != nil, let firstMacroblock = try? reader.ue(),
            let sliceType = try? reader.ue(), sliceType <= 9, let ppsID = try? reader.ue(),
            let pps = pictureSets[Int(ppsID)], sequenceSets[pps.spsID] != nil
        else { return nil }
        // An IDR picture holds I (2) or SI (4) slices only.
        if isIDR && sliceType % 5 != 2 && sliceType % 5 != 4 { return nil }
        guard (try? H264SliceHeader(rbsp: rbsp, lookup: lookup)) != nil else { return nil }
        return firstMacroblock == 0 ? .firstSlice(keyframe: isIDR) : .laterSlice
    }

    private func lookup(_ ppsID: Int) throws -> (H264PPS, H264SPS) {
        guard let pps = pictureSets[ppsID], let sps = sequenceSets[pps.spsID] else {
            throw MediaError(.missingParameterSets, "no H.264 picture parameter set \(ppsID)")
        }
        return (pps, sps)
    }

    mutating func take(parameterSet unit: UnsafeBufferPointer<UInt8>) {
        guard let header = unit.first else { return }
        switch header & 0x1F {
        case 7: if let sps = try? H264SPS(rbsp: NALChecks.rbsp(unit)) { sequenceSets[sps.id] = sps }
        case 8: if let pps = try? H264PPS(rbsp: NALChecks.rbsp(unit)) { pictureSets[pps.id] = pps }
        default: break
        }
    }

    func beginsSample(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let header = prefix.first, header & 0x80 == 0 else { return false }
        switch header & 0x1F {
        case 1, 5: return slice(prefix) == .firstSlice(keyframe: header & 0x1F == 5)
        case 6: return header & 0x60 == 0
        case 7, 8: return header & 0x60 != 0
        default: return false
        }
    }

    func isReadWhole(_ header: UInt8) -> Bool { header & 0x1F == 6 || header & 0x1F == 12 }

    func isParameterSet(_ unit: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let header = unit.first else { return false }
        return header & 0x1F == 7 || header & 0x1F == 8
    }
}
