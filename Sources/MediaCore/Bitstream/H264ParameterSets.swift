/// The fields of an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1) that slice headers and
/// picture order counts depend on. Parsing stops before the VUI, which timing does not need.
public struct H264SPS: Equatable, Sendable, ParameterSet {
    public var id: Int
    public var profileIDC: Int
    public var chromaFormatIDC = 1
    public var separateColourPlane = false
    public var log2MaxFrameNum: Int
    public var pocType: Int
    public var log2MaxPOCLsb = 0
    public var deltaPicOrderAlwaysZero = false
    public var offsetForNonRefPic = 0
    public var offsetForTopToBottomField = 0
    public var offsetsForRefFrame: [Int] = []
    public var frameMbsOnly = true

    /// 0 when the colour planes are coded separately, else `chroma_format_idc` (7.4.2.1.1).
    public var chromaArrayType: Int { separateColourPlane ? 0 : chromaFormatIDC }
    public var maxFrameNum: Int { 1 << log2MaxFrameNum }

    /// Profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static let highProfiles: Set<Int> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    public init(rbsp: [UInt8]) throws {
        var reader = BitReader(rbsp: rbsp)
        try reader.skip(8)  // NAL header
        profileIDC = Int(try reader.bits(8))
        try reader.skip(16)  // constraint flags, reserved bits, level_idc
        id = try reader.ue(atMost: 31, "seq_parameter_set_id", of: "H.264")
        if Self.highProfiles.contains(profileIDC) {
            chromaFormatIDC = try reader.ue(atMost: 3, "chroma_format_idc", of: "H.264")
            if chromaFormatIDC == 3 { separateColourPlane = try reader.flag() }
            _ = try reader.ue()  // bit_depth_luma_minus8
            _ = try reader.ue()  // bit_depth_chroma_minus8
            try reader.skip(1)  // qpprime_y_zero_transform_bypass_flag
            if try reader.flag() {
                for index in 0..<(chromaFormatIDC == 3 ? 12 : 8) {
                    if try reader.flag() { try Self.skipScalingList(&reader, size: index < 6 ? 16 : 64) }
                }
            }
        }
        log2MaxFrameNum = try reader.ue(atMost: 12, "log2_max_frame_num_minus4", of: "H.264") + 4
        pocType = try reader.ue(atMost: 2, "pic_order_cnt_type", of: "H.264")
        switch pocType {
        case 0:
            log2MaxPOCLsb = try reader.ue(atMost: 12, "log2_max_pic_order_cnt_lsb_minus4", of: "H.264") + 4
        case 1:
            deltaPicOrderAlwaysZero = try reader.flag()
            offsetForNonRefPic = Int(try reader.se())
            offsetForTopToBottomField = Int(try reader.se())
            let cycle = try reader.ue(atMost: 255, "num_ref_frames_in_pic_order_cnt_cycle", of: "H.264")
            for _ in 0..<cycle { offsetsForRefFrame.append(Int(try reader.se())) }
        default:
            break
        }
        _ = try reader.ue()  // max_num_ref_frames
        try reader.skip(1)  // gaps_in_frame_num_value_allowed_flag
        _ = try reader.ue()  // pic_width_in_mbs_minus1
        _ = try reader.ue()  // pic_height_in_map_units_minus1
        frameMbsOnly = try reader.flag()
    }

    /// Skips a scaling_list() (7.3.2.1.1.1): deltas are read until the list ends or repeats its last value.
    private static func skipScalingList(_ reader: inout BitReader, size: Int) throws {
        var lastScale = 8
        var nextScale = 8
        for _ in 0..<size {
            if nextScale != 0 {
                let delta = Int(try reader.se())
                nextScale = (lastScale + delta + 256) % 256
            }
            if nextScale != 0 { lastScale = nextScale }
        }
    }

}

/// The fields of an H.264 picture parameter set (7.3.2.2) needed to parse a slice header up to
/// `dec_ref_pic_marking()`.
public struct H264PPS: Equatable, Sendable, PictureParameterSet {
    public var id: Int
    public var spsID: Int
    public var bottomFieldPicOrderInFramePresent: Bool
    public var numRefIdxL0DefaultActive: Int
    public var numRefIdxL1DefaultActive: Int
    public var weightedPred: Bool
    public var weightedBipredIDC: Int
    public var redundantPicCntPresent: Bool

    public init(rbsp: [UInt8]) throws {
        var reader = BitReader(rbsp: rbsp)
        try reader.skip(8)  // NAL header
        id = try reader.ue(atMost: 255, "pic_parameter_set_id", of: "H.264")
        spsID = try reader.ue(atMost: 31, "seq_parameter_set_id", of: "H.264")
        try reader.skip(1)  // entropy_coding_mode_flag
        bottomFieldPicOrderInFramePresent = try reader.flag()
        let sliceGroups = try reader.ue(atMost: 7, "num_slice_groups_minus1", of: "H.264") + 1
        if sliceGroups > 1 { try Self.skipSliceGroupMap(&reader, groups: sliceGroups) }
        numRefIdxL0DefaultActive = try reader.ue(atMost: 31, "num_ref_idx_l0_default_active_minus1", of: "H.264") + 1
        numRefIdxL1DefaultActive = try reader.ue(atMost: 31, "num_ref_idx_l1_default_active_minus1", of: "H.264") + 1
        weightedPred = try reader.flag()
        weightedBipredIDC = Int(try reader.bits(2))
        _ = try reader.se()  // pic_init_qp_minus26
        _ = try reader.se()  // pic_init_qs_minus26
        _ = try reader.se()  // chroma_qp_index_offset
        try reader.skip(2)  // deblocking_filter_control_present_flag, constrained_intra_pred_flag
        redundantPicCntPresent = try reader.flag()
    }

    /// Skips the flexible macroblock ordering description of Baseline/Extended streams.
    private static func skipSliceGroupMap(_ reader: inout BitReader, groups: Int) throws {
        switch try reader.ue() {
        case 0:
            for _ in 0..<groups { _ = try reader.ue() }  // run_length_minus1
        case 2:
            for _ in 0..<(groups - 1) {
                _ = try reader.ue()  // top_left
                _ = try reader.ue()  // bottom_right
            }
        case 3, 4, 5:
            try reader.skip(1)  // slice_group_change_direction_flag
            _ = try reader.ue()  // slice_group_change_rate_minus1
        case 6:
            let units = try reader.ue(atMost: 1 << 20, "pic_size_in_map_units_minus1", of: "H.264") + 1
            var idBits = 0
            while (1 << idBits) < groups { idBits += 1 }
            try reader.skip(units * idBits)
        default:
            break
        }
    }
}
