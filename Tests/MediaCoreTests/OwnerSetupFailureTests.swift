import CFFmpeg
import MediaCore
import TestSupport
import Testing

/// libav owners whose setup fails must throw and free what they allocated exactly once. Both cases were
/// found by fuzzing: each freed its context in the initializer and again in `deinit` (a double free, or a
/// crash inside libavutil), killing the process instead of failing the job.
@Suite struct OwnerSetupFailureTests {
    /// An `hvcC` record whose one NAL unit array has type 5, which `hevc_mp4toannexb` refuses.
    static let hvcCWithUnknownArrayType: [UInt8] =
        [1] + [UInt8](repeating: 0, count: 20) + [0x03]  // version, profile/level fields, lengthSizeMinusOne 3
        + [1]  // numOfArrays
        + [5, 0, 1]  // array: NAL unit type 5, one unit
        + [0, 2, 0x0A, 0x01]  // that unit: 2 bytes

    @Test func bitstreamFilterRefusingItsExtradataThrowsInvalidInput() throws {
        let parameters = CodecParameters()
        parameters.pointer.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointer.pointee.codec_id = AV_CODEC_ID_HEVC
        try parameters.setExtradata(Self.hvcCWithUnknownArrayType)
        let error = #expect(throws: MediaError.self) {
            _ = try BitstreamFilter(
                name: "hevc_mp4toannexb", parameters: parameters.pointer, timeBase: AVRational(num: 1, den: 90000))
        }
        #expect(error?.code == .invalidInput)
        // libav's own log line is process-wide state that a test running beside this one may replace, so the
        // message is checked for mediad's part only.
        #expect(error?.message.contains("starting hevc_mp4toannexb") == true, "\(String(describing: error))")
    }

    @Test func outputFileInAMissingDirectoryThrowsIOError() throws {
        let scratch = try Scratch("output")
        let error = #expect(throws: MediaError.self) {
            _ = try OutputFile(path: scratch.file("missing/output.mkv"), muxer: "matroska")
        }
        #expect(error?.code == .ioError)
        #expect(error?.message.contains("No such file or directory") == true, "\(String(describing: error))")
    }
}
