import MediaCore

extension EncodeJob: MediaJob {
    public static let name = "encode"

    /// `file` is the one input of a raw body, `upload=` or `input_url`: PCM, or camera frames when
    /// `pixel_format` is given. `video` (frames) and `audio` (PCM) are the parts of one muxed encode.
    public static let inputs = [
        JobInputPart(
            "file", accepting: [.wav], orUnrecognized: true, policy: .pcmDecoding,
            summary: "raw PCM or WAV, or raw yuv420p/nv12 frames with pixel_format"),
        JobInputPart(
            "video", accepting: [], orUnrecognized: true, policy: InputPolicy(decoders: []),
            summary: "raw yuv420p or nv12 camera frames"),
        JobInputPart("audio", accepting: [.wav], orUnrecognized: true, policy: .pcmDecoding, summary: "raw PCM or WAV"),
    ]

    /// Encoding video takes as long as a transcode's; PCM alone is quick, but one limit serves the kind.
    public static let timeScale = TranscodeJob.timeScale

    public static func primaryOutput(for options: Options) -> String { "output." + options.format.fileExtension }

    public static func run(
        _ options: Options, inputs: JobInputFiles, output: String, context: JobContext
    ) throws -> EncodeResult {
        try checkParts(Set(inputs.paths.keys), options: options)
        let (file, video, audio) = (inputs["file"], inputs["video"], inputs["audio"])
        guard options.pixelFormat != nil, let frames = file ?? video else {
            return try EncodeJob(input: try file ?? audio ?? inputs.path(of: "file"), output: output, options: options)
                .run(context)
        }
        return try CameraEncode(video: frames, audio: audio, output: output, options: options).run(context)
    }

    /// `file` alone (PCM, or frames with `pixel_format`), or `video` and/or `audio`: frames need
    /// `pixel_format`, which in turn needs frames, and an Annex-B stream holds no audio.
    public static func checkParts(_ parts: Set<String>, options: Options) throws {
        if parts.contains("file"), parts.contains("video") || parts.contains("audio") {
            throw MediaError(
                .invalidOption, "send one input as 'file', or camera frames and PCM as parts 'video' and 'audio'")
        }
        if options.pixelFormat == nil, parts.contains("video") {
            throw MediaError(
                .invalidOption,
                "part 'video' holds raw camera frames: give pixel_format (yuv420p or nv12), width, height and fps")
        }
        if options.pixelFormat != nil, parts == ["audio"] {
            throw MediaError(
                .invalidOption, "pixel_format describes camera frames: send them as part 'video' beside 'audio'")
        }
        if options.format.isAnnexB, parts.contains("audio") {
            throw MediaError(
                .invalidOption,
                "an Annex-B \(options.format.rawValue) stream holds video alone: encode frames and PCM to mp4, "
                    + "mov, mkv or ts")
        }
    }
}

extension EncodeJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        OptionDescription(
            "sample_rate", .integer,
            help: "Sample rate of raw PCM input in Hz, 8000 to 192000 (default 44100; a WAV states its own)."),
        OptionDescription(
            "channels", .integer, help: "Channels of raw PCM input, 1 to 8 (default 2; a WAV states its own)."),
        .choice(
            "sample_format", of: SampleFormat.self,
            help: "Sample format of raw PCM input (default s16le; a WAV states its own)."),
        OptionDescription(
            "bitrate", .bitRate, default: "96000", help: "AAC bit rate, 8k to 512k bits per second, e.g. 128k."),
        .choice(
            "format", of: EncodeJob.Options.Format.self,
            help:
                "The output: m4a, mp4, adts or wav for PCM; Annex-B h264 or h265, or mp4, mov, mkv, ts for camera frames (default m4a, mp4 for frames)."
        ),
        .choice(
            "pixel_format", of: EncodeJob.PixelFormat.self,
            help: "Raw camera frames' layout, I420 (yuv420p) or NV12: makes the input frames instead of PCM."),
        OptionDescription(
            "width", .integer, help: "Width of the raw frames, even, 16-16384 (hevc from 32; required for frames)."),
        OptionDescription(
            "height", .integer, help: "Height of the raw frames, even, 16-16384 (hevc from 32; required for frames)."),
        OptionDescription(
            "fps", .frameRate,
            help: "Rate of the raw frames, e.g. 30 or 30000/1001, up to \(FrameRate.limits.upperBound) "
                + "(required for frames)."),
        .choice(
            "video_codec", of: EncodeJob.VideoCodec.self,
            help: "Video codec: h264 (libx264) or hevc (libx265) (default h264; hevc for h265)."),
        OptionDescription(
            "crf", .integer, help: "Constant quality, lower is better, 0-51 (default 23 for h264, 28 for hevc)."),
        .videoBitrate, .maxBitrate, .bufferSize,
        .choice(
            "preset", of: TranscodeJob.Preset.self,
            help: "Speed against size, x264's names (default the encoder's: medium)."),
        .videoProfile, .videoLevel, .gop, .bframes,
    ]
}

extension JobKind {
    public static let encode = EncodeJob.kind
}
