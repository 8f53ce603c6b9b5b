import MediaCore

extension EncodeJob.Options {
    /// The geometry and rate of raw camera frames, when the options describe them.
    struct FrameGeometry {
        var pixelFormat: EncodeJob.PixelFormat
        var width: Int
        var height: Int
        var fps: FrameRate
    }

    /// The frames' description; nil for PCM alone.
    var frameGeometry: FrameGeometry? {
        guard let pixelFormat, let width, let height, let fps else { return nil }
        return FrameGeometry(pixelFormat: pixelFormat, width: width, height: height, fps: fps)
    }

    /// The video options as transcode's, so that one set of checks (crf or video_bitrate, baseline without
    /// B-frames, main10 only for hevc, levels, VBV) and one encoder setup serve both kinds; nil for PCM alone.
    func videoEncoding() throws -> TranscodeJob.Options? {
        guard pixelFormat != nil else { return nil }
        return try TranscodeJob.Options(
            format: format.transcodeFormat, videoCodec: (videoCodec ?? format.defaultVideoCodec).transcodeCodec,
            crf: crf, videoBitrate: videoBitrate, maxBitrate: maxBitrate, bufferSize: bufferSize, preset: preset,
            profile: profile, level: level, gop: gop, bframes: bframes, fps: fps,
            audioCodec: TranscodeJob.AudioCodec.none)
    }

    /// The checks of raw video: what frames need (`pixel_format`, `width`, `height`, `fps`), what the format
    /// holds, and transcode's checks of the encoding options.
    func validateVideo() throws {
        let videoOptions: [(String, Bool)] = [
            ("width", width != nil), ("height", height != nil), ("fps", fps != nil),
            ("video_codec", videoCodec != nil), ("crf", crf != nil), ("video_bitrate", videoBitrate != nil),
            ("max_bitrate", maxBitrate != nil), ("buffer_size", bufferSize != nil), ("preset", preset != nil),
            ("profile", profile != nil), ("level", level != nil), ("gop", gop != nil), ("bframes", bframes != nil),
        ]
        guard let pixelFormat else {
            let given = videoOptions.filter(\.1).map(\.0)
            if !given.isEmpty {
                throw invalid(
                    "\(given.joined(separator: ", ")) describe raw video: give pixel_format (yuv420p or nv12) "
                        + "with width, height and fps to encode camera frames")
            }
            if !format.takesAudioAlone {
                throw invalid(
                    "format \(format.rawValue) is for camera frames: give pixel_format, width, height and fps "
                        + "(PCM alone encodes to m4a, adts, mp4 or wav)")
            }
            return
        }
        let missing =
            [("width", width), ("height", height)].filter { $0.1 == nil }.map(\.0) + (fps == nil ? ["fps"] : [])
        if !missing.isEmpty {
            throw invalid(
                "raw \(pixelFormat.rawValue) frames carry no header: give \(missing.joined(separator: ", ")) "
                    + "(width, height and fps are required with pixel_format)")
        }
        if !format.carriesVideo {
            throw invalid(
                "\(format.rawValue) holds audio only: camera frames encode to h264, h265, mp4, mov, mkv or ts")
        }
        for (name, value) in [("width", width), ("height", height)] {
            guard let value else { continue }
            if !TranscodeJob.Options.dimensions.contains(value) {
                throw invalid("\(name) \(value) is outside \(TranscodeJob.Options.dimensions)")
            }
            if value % 2 != 0 { throw invalid("\(name) \(value) must be even (4:2:0 chroma is subsampled)") }
        }
        if let fps, !fps.isWithinLimits { throw invalid("fps \(fps) is outside \(FrameRate.limitsText)") }
        if let width, let height, let limit = (videoCodec ?? format.defaultVideoCodec).transcodeCodec.sizeLimit {
            try limit.check(width: width, height: height, what: "the frames")
        }
        if format.isAnnexB, let videoCodec, videoCodec != format.defaultVideoCodec {
            throw invalid(
                "format \(format.rawValue) is an Annex-B \(format.defaultVideoCodec.rawValue) stream: "
                    + "video_codec \(videoCodec.rawValue) does not fit it")
        }
        _ = try videoEncoding()
    }

    private func invalid(_ reason: String) -> MediaError { MediaError(.invalidOption, reason) }
}
