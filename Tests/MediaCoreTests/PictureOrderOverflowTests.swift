import MediaCore
import Testing

/// Picture order counts a hostile stream drives past Int64: refused as `invalid_input`, never a trap.
@Suite struct PictureOrderOverflowTests {
    typealias BitWriter = H264PictureOrderTests.BitWriter

    /// A Baseline SPS with 16-bit frame numbers and picture order count type 1 whose one-picture cycle
    /// advances the count by 2^31-1 per reference frame.
    static func sps() -> [UInt8] {
        var w = BitWriter()
        w.u(8, 66)  // profile_idc: Baseline
        w.u(16, 0x001E)  // constraint flags, level 3.0
        w.ue(0)  // seq_parameter_set_id
        w.ue(12)  // log2_max_frame_num_minus4: 16-bit frame numbers
        w.ue(1)  // pic_order_cnt_type
        w.u(1, 1)  // delta_pic_order_always_zero_flag
        w.se(0)  // offset_for_non_ref_pic
        w.se(0)  // offset_for_top_to_bottom_field
        w.ue(1)  // num_ref_frames_in_pic_order_cnt_cycle
        w.se(Int(Int32.max))  // offset_for_ref_frame[0]
        w.ue(1)  // max_num_ref_frames
        w.u(1, 0)  // gaps_in_frame_num_value_allowed_flag
        w.ue(19)
        w.ue(14)  // 320x240
        w.u(1, 1)  // frame_mbs_only_flag
        w.u(3, 0)  // direct_8x8_inference, frame_cropping, vui_parameters_present
        return w.nal(0x67)
    }

    static func pps() -> [UInt8] {
        var w = BitWriter()
        w.ue(0)
        w.ue(0)  // pps and sps ids
        w.u(2, 0)  // entropy_coding_mode_flag, bottom_field_pic_order_in_frame_present_flag
        w.ue(0)  // num_slice_groups_minus1
        w.ue(0)
        w.ue(0)  // num_ref_idx defaults
        w.u(3, 0)  // weighted_pred_flag, weighted_bipred_idc
        w.se(0)
        w.se(0)
        w.se(0)
        w.u(3, 0)  // deblocking control, constrained intra, redundant_pic_cnt_present
        return w.nal(0x68)
    }

    /// A reference P slice (or the IDR slice) with `frameNum`.
    static func slice(frameNum: Int, idr: Bool) -> [UInt8] {
        var w = BitWriter()
        w.ue(0)  // first_mb_in_slice
        w.ue(idr ? 7 : 5)  // slice_type: I or P, all slices alike
        w.ue(0)  // pic_parameter_set_id
        w.u(16, frameNum)
        if idr {
            w.ue(0)  // idr_pic_id
            w.u(2, 0)  // no_output_of_prior_pics_flag, long_term_reference_flag
        } else {
            w.u(1, 0)  // num_ref_idx_active_override_flag
            w.u(1, 0)  // ref_pic_list_modification_flag_l0
            w.u(1, 0)  // adaptive_ref_pic_marking_mode_flag
        }
        w.u(6, 0)  // slice_qp_delta and the rest: enough bits for the parser
        return w.nal(idr ? 0x65 : 0x21)
    }

    /// Each picture's frame number is below the previous one, so each adds 2^16 to FrameNumOffset;
    /// after 2^16 pictures the expected count, 2^32 × (2^31-1), is past Int64.
    @Test func pocTypeOneOverflowIsInvalidInput() throws {
        var order = H264PictureOrder()
        let first = Self.sps() + Self.pps() + Self.slice(frameNum: 0, idr: true)
        _ = try first.withUnsafeBufferPointer { try order.parse(accessUnit: $0) }
        let error = #expect(throws: MediaError.self) {
            for picture in 1...70_000 {
                let unit = Self.slice(frameNum: 65535 - picture % 65536, idr: false)
                _ = try unit.withUnsafeBufferPointer { try order.parse(accessUnit: $0) }
            }
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("picture order count") == true, "\(String(describing: error))")
    }
}
