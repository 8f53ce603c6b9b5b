import MediaCore
import Testing

/// Hand-made H.264 streams for what encoders at hand do not produce: memory management operation 5,
/// scaling matrices in the SPS, picture order count types 1 and 2 after operation 5.
@Suite struct H264PictureOrderTests {
    /// Writes bits, Exp-Golomb codes and NAL units with emulation prevention.
    struct BitWriter {
        var bits: [Bool] = []
        mutating func u(_ count: Int, _ value: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        mutating func ue(_ value: Int) {
            let code = value + 1
            let length = Int.bitWidth - code.leadingZeroBitCount
            u(length - 1, 0)
            u(length, code)
        }
        mutating func se(_ value: Int) { ue(value > 0 ? 2 * value - 1 : -2 * value) }
        /// The NAL unit with a start code: header byte, payload, stop bit, emulation prevention.
        mutating func nal(_ header: UInt8) -> [UInt8] {
            u(1, 1)
            while bits.count % 8 != 0 { bits.append(false) }
            let payload = stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<start + 8].reduce(UInt8(0)) { ($0 << 1) | ($1 ? 1 : 0) }
            }
            var escaped: [UInt8] = []
            var zeros = 0
            for byte in payload {
                if zeros >= 2 && byte <= 3 {
                    escaped.append(3)
                    zeros = 0
                }
                escaped.append(byte)
                zeros = byte == 0 ? zeros + 1 : 0
            }
            return [0, 0, 0, 1, header] + escaped
        }
    }

    /// A High profile SPS with scaling lists (one explicit 4x4, one default 8x8) and the given POC type.
    static func sps(pocType: Int) -> [UInt8] {
        var w = BitWriter()
        w.u(8, 100)
        w.u(16, 0x001E)  // constraint flags, level 3.0
        w.ue(0)  // sps id
        w.ue(1)  // chroma_format_idc
        w.ue(0)
        w.ue(0)  // bit depths
        w.u(1, 0)
        w.u(1, 1)  // seq_scaling_matrix_present_flag
        for list in 0..<8 {
            switch list {
            case 0:
                w.u(1, 1)
                for _ in 0..<16 { w.se(1) }
            case 6:
                w.u(1, 1)
                w.se(-8)  // nextScale 0: use the default list
            default:
                w.u(1, 0)
            }
        }
        w.ue(0)  // log2_max_frame_num_minus4: 16 frame numbers
        w.ue(pocType)
        if pocType == 0 { w.ue(0) }  // log2_max_pic_order_cnt_lsb_minus4: 16
        if pocType == 1 {
            w.u(1, 0)  // delta_pic_order_always_zero_flag
            w.se(-1)  // offset_for_non_ref_pic
            w.se(0)  // offset_for_top_to_bottom_field
            w.ue(1)
            w.se(2)  // one reference frame per cycle, 2 apart
        }
        w.ue(2)
        w.u(1, 0)
        w.ue(19)
        w.ue(14)
        w.u(1, 1)  // frame_mbs_only_flag
        w.u(1, 1)
        w.u(1, 0)
        w.u(1, 0)
        return w.nal(0x67)
    }

    static func pps() -> [UInt8] {
        var w = BitWriter()
        w.ue(0)
        w.ue(0)
        w.u(1, 0)
        w.u(1, 1)  // bottom_field_pic_order_in_frame_present_flag
        w.ue(0)
        w.ue(0)
        w.ue(0)
        w.u(1, 1)  // weighted_pred_flag
        w.u(2, 0)
        w.se(0)
        w.se(0)
        w.se(0)
        w.u(3, 0b100)
        return w.nal(0x68)
    }

    enum Kind { case idr, p, pWithMMCO5, b }

    /// A slice: P slices are reference pictures with a weight table and a list modification.
    static func slice(_ kind: Kind, frameNum: Int, pocLsb: Int = 0, pocType: Int) -> [UInt8] {
        var w = BitWriter()
        w.ue(0)
        w.ue(kind == .b ? 6 : kind == .idr ? 7 : 5)
        w.ue(0)
        w.u(4, frameNum)
        if kind == .idr { w.ue(3) }
        if pocType == 0 {
            w.u(4, pocLsb)
            w.se(0)  // delta_pic_order_cnt_bottom
        }
        if pocType == 1 {
            w.se(0)
            w.se(0)
        }
        if kind == .b {
            w.u(1, 1)  // direct_spatial_mv_pred_flag
            w.u(1, 0)
            w.u(1, 0)
            w.u(1, 0)  // no list modifications
        }
        if kind == .p || kind == .pWithMMCO5 {
            w.u(1, 1)
            w.ue(1)  // two active references
            w.u(1, 1)
            w.ue(0)
            w.ue(0)
            w.ue(3)  // one modification
            w.ue(5)  // luma_log2_weight_denom
            w.ue(5)
            for reference in 0..<2 {
                w.u(1, 1)
                w.se(reference + 3)
                w.se(-2)
                w.u(1, reference)
                if reference == 1 { for value in [1, -1, 2, -2] { w.se(value) } }
            }
        }
        switch kind {
        case .idr: w.u(2, 0)
        case .p: w.u(1, 0)
        case .pWithMMCO5:
            w.u(1, 1)
            w.ue(1)
            w.ue(0)  // operation 1 first
            w.ue(5)
            w.ue(0)
        case .b: break
        }
        w.u(16, 0xA5A5)  // stands in for the rest of the slice
        return w.nal(kind == .idr ? 0x65 : kind == .b ? 0x01 : 0x41)
    }

    private func orders(_ units: [[UInt8]]) throws -> [PictureOrder] {
        var parser = H264PictureOrder()
        return try units.compactMap { unit in
            try unit.withUnsafeBufferPointer { try parser.parse(accessUnit: $0).picture }
        }
    }

    @Test func type0ResetsAtMMCO5() throws {
        let head = Self.sps(pocType: 0) + Self.pps()
        let pictures = try orders([
            head + Self.slice(.idr, frameNum: 0, pocType: 0),
            Self.slice(.p, frameNum: 1, pocLsb: 8, pocType: 0),
            Self.slice(.b, frameNum: 2, pocLsb: 4, pocType: 0),
            Self.slice(.pWithMMCO5, frameNum: 2, pocLsb: 12, pocType: 0),
            Self.slice(.p, frameNum: 1, pocLsb: 4, pocType: 0),
            Self.slice(.b, frameNum: 2, pocLsb: 14, pocType: 0),
            Self.slice(.b, frameNum: 2, pocLsb: 2, pocType: 0),
        ])
        #expect(pictures.map(\.count) == [0, 8, 4, 0, 4, -2, 2])
        #expect(pictures.map(\.startsPeriod) == [true, false, false, true, false, false, false])
        #expect(pictures.map(\.isKeyframe) == [true, false, false, false, false, false, false])
        #expect(PresentationTimeline(pictures: pictures).pts == [0, 2, 1, 4, 6, 3, 5])
    }

    @Test(arguments: [1, 2])
    func frameNumberTypesResetAtMMCO5(_ pocType: Int) throws {
        let head = Self.sps(pocType: pocType) + Self.pps()
        let pictures = try orders([
            head + Self.slice(.idr, frameNum: 0, pocType: pocType),
            Self.slice(.p, frameNum: 1, pocType: pocType),
            Self.slice(.p, frameNum: 2, pocType: pocType),
            Self.slice(.pWithMMCO5, frameNum: 3, pocType: pocType),
            Self.slice(.p, frameNum: 1, pocType: pocType),
            Self.slice(.b, frameNum: 2, pocType: pocType),
        ])
        // Type 2 counts 2 per frame number, one less for a non-reference picture. Type 1 here expects 2 per
        // reference frame and offset_for_non_ref_pic = -1 from the previous reference frame (8.2.1.2).
        #expect(pictures.map(\.count) == (pocType == 1 ? [0, 2, 4, 0, 2, 1] : [0, 2, 4, 0, 2, 3]))
        #expect(pictures.map(\.startsPeriod) == [true, false, false, true, false, false])
    }

    @Test func wrapsFrameNumbersWithoutMMCO5() throws {
        var units = [Self.sps(pocType: 2) + Self.pps() + Self.slice(.idr, frameNum: 0, pocType: 2)]
        for index in 1..<40 { units.append(Self.slice(.p, frameNum: index % 16, pocType: 2)) }
        #expect(try orders(units).map(\.count) == (0..<40).map { Int64(2 * $0) })
    }

    @Test func needsParameterSets() throws {
        #expect(throws: MediaError.self) { try orders([Self.slice(.idr, frameNum: 0, pocType: 0)]) }
        do {
            _ = try orders([Self.sps(pocType: 0) + Self.slice(.idr, frameNum: 0, pocType: 0)])
        } catch let error as MediaError {
            #expect(error.code == .missingParameterSets)
        }
    }
}
