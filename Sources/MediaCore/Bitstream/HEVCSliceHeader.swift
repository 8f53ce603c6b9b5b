/// The start of the first slice segment header of an H.265 picture (7.3.6.1), through its picture
/// order count LSBs.
public struct HEVCSliceHeader: Equatable, Sendable {
    public var nalType: Int
    public var temporalID: Int
    public var pocLsb = 0

    /// Parses `rbsp` (NAL header included), resolving its PPS and SPS through `lookup`.
    public init(rbsp: [UInt8], lookup: (_ ppsID: Int) throws -> (HEVCPPS, HEVCSPS)) throws {
        var reader = BitReader(rbsp: rbsp)
        let header = try reader.bits(16)
        nalType = Int(header >> 9) & 0x3F
        temporalID = max(0, Int(header & 7) - 1)
        guard try reader.flag() else {  // first_slice_segment_in_pic_flag
            throw MediaError(.invalidInput, "an H.265 picture starts without its first slice segment")
        }
        if (16...23).contains(nalType) { try reader.skip(1) }  // no_output_of_prior_pics_flag
        let (pps, sps) = try lookup(reader.ue(atMost: 63, "slice_pic_parameter_set_id", of: "H.265"))
        try reader.skip(pps.numExtraSliceHeaderBits)
        _ = try reader.ue()  // slice_type
        if pps.outputFlagPresent { try reader.skip(1) }  // pic_output_flag
        if sps.separateColourPlane { try reader.skip(2) }  // colour_plane_id
        if nalType != 19 && nalType != 20 { pocLsb = Int(try reader.bits(sps.log2MaxPOCLsb)) }
    }
}
