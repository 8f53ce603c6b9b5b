import CFFmpeg
import MediaCore

/// Decodes the first recovered pictures with the reference's parameter sets, so that a reference of the
/// same codec but other settings (another picture size, profile or entropy coding) is refused rather than
/// written into a file whose pictures are noise.
///
/// A slice parsed against the wrong sequence parameter set still looks like a slice to the walk; its
/// macroblocks do not decode. libav's decoder is asked to fail on any damage (`AV_EF_EXPLODE`) instead of
/// concealing it.
enum PictureCheck {
    /// The pictures decoded, from the first keyframe on.
    static let pictures = 8

    /// Throws `reference_mismatch` when the first `pictures` video samples from the first keyframe do not
    /// decode cleanly.
    static func check(
        _ samples: [FoundSample], reference: ReferenceProfile, track: ReferenceVideo, window: ByteWindow
    ) throws {
        let video = samples.filter { $0.track == .video }
        guard let first = video.firstIndex(where: \.isKeyframe) else { return }
        let decoder = try reference.decoder(for: track.streamIndex)
        decoder.context.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BITSTREAM
        decoder.context.pointee.log_level_offset = AV_LOG_TRACE - AV_LOG_ERROR
        let packet = Packet()
        let frame = Frame()
        var problem: String? = nil
        func receiveAll() {
            while problem == nil {
                let result = avcodec_receive_frame(decoder.context, frame.pointer)
                if result == mediad_averror_eagain() || result == mediad_averror_eof() { return }
                if result < 0 {
                    problem = LibavError.text(result)
                } else if frame.pointer.pointee.decode_error_flags != 0 {
                    problem = "the picture decoded with errors"
                }
                frame.unref()
            }
        }
        for (index, sample) in video[first...].prefix(pictures).enumerated() {
            try packet.setData(try window.bytes(at: sample.offset, count: sample.size))
            packet.pts = Int64(index)
            packet.dts = Int64(index)
            let sent = avcodec_send_packet(decoder.context, packet.pointer)
            if sent < 0 && sent != mediad_averror_eagain() { problem = LibavError.text(sent) }
            receiveAll()
            if problem != nil { break }
        }
        if problem == nil {
            avcodec_send_packet(decoder.context, nil)
            receiveAll()
        }
        if let problem {
            let parameters = reference.stream(track.streamIndex).pointee.codecpar.pointee
            throw MediaError(
                .referenceMismatch,
                "the recording's \(track.codecName) pictures do not decode with the reference's settings "
                    + "(\(parameters.width)x\(parameters.height)): \(problem); use a reference recorded with "
                    + "the same device and settings")
        }
    }
}
