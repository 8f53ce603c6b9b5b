/// The part of an H.264 slice header (7.3.3) that picture order counts depend on.
///
/// Parsing runs through `ref_pic_list_modification()` and `pred_weight_table()` into
/// `dec_ref_pic_marking()` so that memory management control operation 5 — which resets frame numbers
/// and picture order counts like an IDR — is seen.
public struct H264SliceHeader: Equatable, Sendable {
    public var nalRefIDC: Int
    public var isIDR: Bool
    public var frameNum: Int
    public var fieldPic = false
    public var bottomField = false
    public var pocLsb = 0
    public var deltaPOCBottom = 0
    public var deltaPOC0 = 0
    public var deltaPOC1 = 0
    /// The slice carries memory_management_control_operation 5.
    public var hasMMCO5 = false

    /// Parses the slice header in `rbsp` (NAL header included), resolving its PPS and SPS through `lookup`.
    public init(rbsp: [UInt8], lookup: (_ ppsID: Int) throws -> (H264PPS, H264SPS)) throws {
        var reader = BitReader(rbsp: rbsp)
        let header = try reader.bits(8)
        nalRefIDC = Int(header >> 5) & 3
        isIDR = header & 0x1F == 5
        _ = try reader.ue()  // first_mb_in_slice
        let sliceType = try reader.ue(atMost: 9, "slice_type", of: "H.264") % 5
        let (pps, sps) = try lookup(reader.ue(atMost: 255, "pic_parameter_set_id", of: "H.264"))
        if sps.separateColourPlane { try reader.skip(2) }  // colour_plane_id
        frameNum = Int(try reader.bits(sps.log2MaxFrameNum))
        if !sps.frameMbsOnly {
            fieldPic = try reader.flag()
            if fieldPic { bottomField = try reader.flag() }
        }
        if isIDR { _ = try reader.ue() }  // idr_pic_id
        if sps.pocType == 0 {
            pocLsb = Int(try reader.bits(sps.log2MaxPOCLsb))
            if pps.bottomFieldPicOrderInFramePresent && !fieldPic { deltaPOCBottom = Int(try reader.se()) }
        }
        if sps.pocType == 1 && !sps.deltaPicOrderAlwaysZero {
            deltaPOC0 = Int(try reader.se())
            if pps.bottomFieldPicOrderInFramePresent && !fieldPic { deltaPOC1 = Int(try reader.se()) }
        }
        guard nalRefIDC != 0 else { return }
        try Self.skipToRefPicMarking(&reader, sliceType: sliceType, pps: pps, sps: sps)
        hasMMCO5 = try Self.readMMCO5(&reader, isIDR: isIDR)
    }

    private static let p = 0, b = 1, i = 2, sp = 3, si = 4

    /// Skips the fields between the picture order count syntax and `dec_ref_pic_marking()`.
    private static func skipToRefPicMarking(_ reader: inout BitReader, sliceType: Int, pps: H264PPS, sps: H264SPS)
        throws
    {
        if pps.redundantPicCntPresent { _ = try reader.ue() }  // redundant_pic_cnt
        if sliceType == b { try reader.skip(1) }  // direct_spatial_mv_pred_flag
        var activeL0 = pps.numRefIdxL0DefaultActive
        var activeL1 = pps.numRefIdxL1DefaultActive
        if sliceType == p || sliceType == sp || sliceType == b {
            if try reader.flag() {  // num_ref_idx_active_override_flag
                activeL0 = try reader.ue(atMost: 31, "num_ref_idx_l0_active_minus1", of: "H.264") + 1
                if sliceType == b {
                    activeL1 = try reader.ue(atMost: 31, "num_ref_idx_l1_active_minus1", of: "H.264") + 1
                }
            }
        }
        if sliceType != i && sliceType != si {
            try skipRefPicListModification(&reader)
            if sliceType == b { try skipRefPicListModification(&reader) }
        }
        let weighted =
            (pps.weightedPred && (sliceType == p || sliceType == sp)) || (pps.weightedBipredIDC == 1 && sliceType == b)
        if weighted {
            _ = try reader.ue()  // luma_log2_weight_denom
            if sps.chromaArrayType != 0 { _ = try reader.ue() }  // chroma_log2_weight_denom
            try skipWeights(&reader, count: activeL0, chroma: sps.chromaArrayType != 0)
            if sliceType == b { try skipWeights(&reader, count: activeL1, chroma: sps.chromaArrayType != 0) }
        }
    }

    /// Skips one list of `ref_pic_list_modification()` (7.3.3.1).
    private static func skipRefPicListModification(_ reader: inout BitReader) throws {
        guard try reader.flag() else { return }
        for _ in 0..<100 {
            switch try reader.ue() {
            case 0, 1, 2: _ = try reader.ue()  // abs_diff_pic_num_minus1 or long_term_pic_num
            case 3: return
            default:
                throw MediaError(.invalidInput, "an H.264 slice header has an invalid modification_of_pic_nums_idc")
            }
        }
        throw MediaError(.invalidInput, "an H.264 slice header has too many reference list modifications")
    }

    /// Skips the weights of one reference list of `pred_weight_table()` (7.3.3.2).
    private static func skipWeights(_ reader: inout BitReader, count: Int, chroma: Bool) throws {
        for _ in 0..<count {
            if try reader.flag() {  // luma_weight_flag
                _ = try reader.se()
                _ = try reader.se()
            }
            if chroma, try reader.flag() {  // chroma_weight_flag
                for _ in 0..<4 { _ = try reader.se() }
            }
        }
    }

    /// Reads `dec_ref_pic_marking()` (7.3.3.3); true when it contains operation 5.
    private static func readMMCO5(_ reader: inout BitReader, isIDR: Bool) throws -> Bool {
        if isIDR {
            try reader.skip(2)  // no_output_of_prior_pics_flag, long_term_reference_flag
            return false
        }
        guard try reader.flag() else { return false }  // adaptive_ref_pic_marking_mode_flag
        var sawFive = false
        for _ in 0..<100 {
            let operation = try reader.ue()
            switch operation {
            case 0: return sawFive
            case 1: _ = try reader.ue()  // difference_of_pic_nums_minus1
            case 2: _ = try reader.ue()  // long_term_pic_num
            case 3:
                _ = try reader.ue()  // difference_of_pic_nums_minus1
                _ = try reader.ue()  // long_term_frame_idx
            case 4: _ = try reader.ue()  // max_long_term_frame_idx_plus1
            case 5: sawFive = true
            case 6: _ = try reader.ue()  // long_term_frame_idx
            default:
                throw MediaError(.invalidInput, "an H.264 slice header has memory management operation \(operation)")
            }
        }
        throw MediaError(.invalidInput, "an H.264 slice header has too many memory management operations")
    }
}
