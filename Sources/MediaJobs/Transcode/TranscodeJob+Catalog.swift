import MediaCore

extension TranscodeJob: SingleFileJob {
    public static let name = "transcode"
    public typealias Result = TranscodeResult

    static let inputPolicy = InputPolicy.transcoding
    static let inputSummary =
        "an MP4-family, Matroska/WebM, MPEG-TS, FLV, ASF, WAV, ADTS or H.264/H.265 Annex-B file"

    /// Encoding is far slower than copying: a transcode gets ten times the time (and CPU time) the size of
    /// its input gives a remux.
    public static let timeScale = 10.0

    public static func primaryOutput(for options: Options) -> String { "output." + options.format.fileExtension }
}

extension TranscodeJob.Options: JobOptionSet {
    public static let descriptions: [OptionDescription] = [
        .choice(
            "format", of: TranscodeJob.Format.self, default: .mp4,
            help: "The container to write (mp4 and mov with faststart)."),
        .fragmented, .globalSidx,
        .choice(
            "video_codec", of: TranscodeJob.VideoCodec.self,
            help:
                "Video codec: h264 (libx264), hevc (libx265), av1 (SVT-AV1), vp9 (libvpx), copy or none (default h264; vp9 for webm; none for audio formats)."
        ),
        OptionDescription(
            "crf", .integer,
            help: "Constant quality, lower is better: 0-51 for h264/hevc, 0-63 for av1/vp9 (default 23, 28, 35, 31)."),
        .videoBitrate, .maxBitrate, .bufferSize,
        .choice(
            "preset", of: TranscodeJob.Preset.self,
            help: "Speed against size, x264's names (mapped for av1 and vp9; default the encoder's: medium)."),
        .videoProfile, .videoLevel, .gop, .bframes,
        OptionDescription(
            "fps", .frameRate, help: "A constant output frame rate, e.g. 30 or 30000/1001 (default the input's timing)."
        ),
        OptionDescription(
            "width", .integer,
            help: "Output width, even, 16-16384 (hevc from 32, av1 from 64); alone it keeps the aspect."),
        OptionDescription(
            "height", .integer,
            help: "Output height, even, 16-16384 (hevc from 32, av1 64-8704); alone it keeps the aspect."),
        .choice(
            "pixel_format", of: TranscodeJob.PixelFormat.self,
            help: "Pixel format of the encoded video (default yuv420p; yuv420p10le for main10)."),
        .choice(
            "rotate", of: TranscodeJob.Rotation.self, default: .auto,
            help: "auto turns rotated video upright; keep leaves it as coded with the rotation as metadata."),
        .choice(
            "audio_codec", of: TranscodeJob.AudioCodec.self,
            help:
                "Audio codec: aac, opus (libopus), mp3 (LAME), copy or none (default aac; opus for webm; mp3 for mp3)."),
        OptionDescription("audio_bitrate", .bitRate, help: "Audio bit rate, 8k to 512k (default 128k; 96k for opus)."),
        OptionDescription(
            "sample_rate", .integer, help: "Output sample rate in Hz, one the codec takes (default the input's)."),
        OptionDescription("channels", .integer, help: "Output channels, 1-8, mixed down or up (default the input's)."),
        OptionDescription(
            "start", .seconds, help: "Start this many seconds into the input, exactly (re-encoded tracks)."),
        OptionDescription("end", .seconds, help: "End this many seconds into the input, exactly (re-encoded tracks)."),
        .choice(
            "measure", of: TranscodeJob.QualityMeasure.self, default: TranscodeJob.QualityMeasure.none,
            help: "Score the output's video against the source: ssim or psnr."),
        OptionDescription(
            "loudness", .integer,
            help: "Normalise the audio to this EBU R128 integrated loudness, -70 to -5 LUFS (two passes)."),
        OptionDescription(
            "true_peak", .integer, help: "The true-peak ceiling of loudness normalisation, -9 to 0 dBTP (default -1)."),
    ]
}

extension JobKind {
    public static let transcode = TranscodeJob.kind
}
