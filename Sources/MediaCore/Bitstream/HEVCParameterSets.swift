/// An H.265 video parameter set (ITU-T H.265 7.3.2.1): only its id, which an SPS must be able to resolve.
public struct HEVCVPS: Equatable, Sendable {
    public var id: Int

    public init(rbsp: [UInt8]) throws {
        var reader = BitReader(rbsp: rbsp)
        try reader.skip(16)  // NAL header
        id = Int(try reader.bits(4))
    }
}

/// The fields of an H.265 sequence parameter set (7.3.2.2) that a slice header needs up to its picture
/// order count.
public struct HEVCSPS: Equatable, Sendable, ParameterSet {
    public var id: Int
    public var vpsID: Int
    public var separateColourPlane = false
    public var log2MaxPOCLsb: Int

    public init(rbsp: [UInt8]) throws {
        var reader = BitReader(rbsp: rbsp)
        try reader.skip(16)  // NAL header
        vpsID = Int(try reader.bits(4))
        let maxSubLayersMinus1 = Int(try reader.bits(3))
        try reader.skip(1)  // sps_temporal_id_nesting_flag
        try Self.skipProfileTierLevel(&reader, maxSubLayersMinus1: maxSubLayersMinus1)
        id = try reader.ue(atMost: 15, "sps_seq_parameter_set_id", of: "H.265")
        let chromaFormatIDC = try reader.ue(atMost: 3, "chroma_format_idc", of: "H.265")
        if chromaFormatIDC == 3 { separateColourPlane = try reader.flag() }
        _ = try reader.ue()  // pic_width_in_luma_samples
        _ = try reader.ue()  // pic_height_in_luma_samples
        if try reader.flag() {  // conformance_window_flag
            for _ in 0..<4 { _ = try reader.ue() }
        }
        _ = try reader.ue()  // bit_depth_luma_minus8
        _ = try reader.ue()  // bit_depth_chroma_minus8
        log2MaxPOCLsb = try reader.ue(atMost: 12, "log2_max_pic_order_cnt_lsb_minus4", of: "H.265") + 4
    }

    /// Skips profile_tier_level(1, maxSubLayersMinus1) (7.3.3).
    private static func skipProfileTierLevel(_ reader: inout BitReader, maxSubLayersMinus1: Int) throws {
        try reader.skip(88 + 8)  // general profile (88 bits) and general_level_idc
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            profilePresent.append(try reader.flag())
            levelPresent.append(try reader.flag())
        }
        if maxSubLayersMinus1 > 0 { try reader.skip(2 * (8 - maxSubLayersMinus1)) }  // reserved_zero_2bits
        for layer in 0..<maxSubLayersMinus1 {
            if profilePresent[layer] { try reader.skip(88) }
            if levelPresent[layer] { try reader.skip(8) }
        }
    }

}

/// The fields of an H.265 picture parameter set (7.3.2.3) that come before a slice's picture order count.
public struct HEVCPPS: Equatable, Sendable, PictureParameterSet {
    public var id: Int
    public var spsID: Int
    public var outputFlagPresent: Bool
    public var numExtraSliceHeaderBits: Int

    public init(rbsp: [UInt8]) throws {
        var reader = BitReader(rbsp: rbsp)
        try reader.skip(16)  // NAL header
        id = try reader.ue(atMost: 63, "pps_pic_parameter_set_id", of: "H.265")
        spsID = try reader.ue(atMost: 15, "pps_seq_parameter_set_id", of: "H.265")
        try reader.skip(1)  // dependent_slice_segments_enabled_flag
        outputFlagPresent = try reader.flag()
        numExtraSliceHeaderBits = Int(try reader.bits(3))
    }
}
