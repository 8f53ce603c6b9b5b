import CFFmpeg
import MediaCore

/// How many bytes a decode will write, told from the input's description before anything decodes.
///
/// Raw frames and PCM are far larger than the compressed track: 25 kB of black 2160p H.264 decode to
/// 746 MB of Y4M. The output's size is the frame (or sample) size times the count, both known once the
/// input is probed, so a decode over its `OutputAllowance` is refused before it writes a byte. The count
/// is the container's own where it keeps one (MP4's sample count), the packets of a raw Annex-B stream
/// (counted by a pass that parses without decoding), else the duration times the rate (Matroska,
/// MPEG-TS, ADTS's estimate from the bit rate). A count that cannot be told leaves the writes to be
/// checked as they grow.
struct DecodedSize {
    let bytes: Int64
    /// What the bytes are, for the refusal: `30 frames of 3840x2160 yuv420p as y4m`.
    let description: String

    /// Checks the decode's predicted size against `context`'s allowance; does nothing without one.
    func check(_ context: JobContext) throws {
        try context.outputAllowance.checkPredicted(bytes, description)
    }

    /// The frames of `stream` in `pixelFormat` (the decoder's, or NV12 when converted), each preceded by a
    /// `FRAME` line in Y4M; nil when neither the frame count nor the duration is known.
    static func video(
        of file: InputFile, stream: UnsafeMutablePointer<AVStream>, pixelFormat: AVPixelFormat, frameRate: AVRational,
        y4m: Bool, context: JobContext
    ) throws -> DecodedSize? {
        let parameters = stream.pointee.codecpar.pointee
        // A decoder whose pixel format is not known yet writes at least 4:2:0 (1.5 bytes a pixel).
        let format = pixelFormat == AV_PIX_FMT_NONE ? AV_PIX_FMT_YUV420P : pixelFormat
        let planes = av_image_get_buffer_size(format, parameters.width, parameters.height, 1)
        guard planes > 0, let frames = try frameCount(of: file, stream: stream, frameRate: frameRate, context: context)
        else { return nil }
        let perFrame = Int64(planes) + (y4m ? Int64(Y4MHeader.frameMarker.count) : 0)
        let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "yuv420p"
        return DecodedSize(
            bytes: frames.multipliedReportingOverflow(by: perFrame).overflow ? .max : frames * perFrame,
            description: "\(frames) frames of \(parameters.width)x\(parameters.height) \(name) as "
                + (y4m ? "y4m" : "raw frames"))
    }

    /// `samples` per channel (the presented ones when the container says, else the duration times the
    /// rate) of `stream` in `sampleFormat`, with a 44-byte header for WAV; nil when no duration is known.
    static func audio(
        of file: InputFile, stream: UnsafeMutablePointer<AVStream>, presentedSamples: Int64?,
        sampleFormat: SampleFormat, wav: Bool
    ) -> DecodedSize? {
        let parameters = stream.pointee.codecpar.pointee
        let rate = Int64(parameters.sample_rate)
        let channels = Int64(parameters.ch_layout.nb_channels)
        guard rate > 0, channels > 0,
            let samples = presentedSamples
                ?? duration(of: file, stream: stream).map({ Int64(($0 * Double(rate)).rounded(.up)) })
        else { return nil }
        let perSample = channels * Int64(sampleFormat.bytesPerSample)
        let (bytes, overflow) = samples.multipliedReportingOverflow(by: perSample)
        return DecodedSize(
            bytes: overflow ? .max : bytes + (wav ? 44 : 0),
            description: "\(samples) samples of \(channels) channel(s) at \(rate) Hz as \(sampleFormat.rawValue)"
                + (wav ? " WAV" : ""))
    }

    /// The container's frame count, the packets of a raw stream, or the duration times `frameRate`.
    private static func frameCount(
        of file: InputFile, stream: UnsafeMutablePointer<AVStream>, frameRate: AVRational, context: JobContext
    ) throws -> Int64? {
        if stream.pointee.nb_frames > 0 { return stream.pointee.nb_frames }
        if file.container == .h264 || file.container == .hevc {
            return try countPackets(file.path, container: file.container, policy: file.policy, context: context)
        }
        guard let seconds = duration(of: file, stream: stream), frameRate.num > 0, frameRate.den > 0 else {
            return nil
        }
        return Int64((seconds * Double(frameRate.num) / Double(frameRate.den)).rounded(.up))
    }

    /// The access units of a raw Annex-B file as libav's parser splits them: one a picture.
    private static func countPackets(
        _ path: String, container: InputContainer, policy: InputPolicy, context: JobContext
    ) throws -> Int64 {
        let scan = try InputFile(path: path, container: container, policy: policy)
        let packet = Packet()
        var count: Int64 = 0
        while try scan.read(into: packet) {
            try context.checkpoint()
            count += 1
        }
        return count
    }

    /// The track's duration in seconds, else the file's; nil when neither is stated.
    private static func duration(of file: InputFile, stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let value = stream.pointee.duration
        let base = stream.pointee.time_base
        if value != mediad_nopts_value(), value > 0, base.num > 0, base.den > 0 {
            return Double(value) * Double(base.num) / Double(base.den)
        }
        return file.duration
    }
}
