import CFFmpeg
import MediaCore

/// Opens the video encoder a transcode asked for, translating mediad's options into each libav encoder's
/// own: x264's and x265's presets, CRF, VBV, profile and level; SVT-AV1's numbered presets; libvpx's
/// `cpu-used` and constant-quality mode.
struct VideoEncoderSetup {
    var options: TranscodeJob.Options
    /// The pictures the encoder takes: those of the filter graph's sink that feeds it.
    var shape: FilterGraph.VideoShape
    var timeBase: AVRational
    var frameRate: AVRational?
    var globalHeader: Bool
    /// Whether the parameter sets (SPS and PPS; VPS too for HEVC) go in band before every keyframe, as
    /// Annex-B streams need to be decodable from any keyframe (a phone's encoder writes them so).
    var repeatHeaders: Bool

    /// The encoder of what `sink` of `graph` delivers, in its pictures' shape and its time base.
    init(
        options: TranscodeJob.Options, sink: String, of graph: FilterGraph, frameRate: AVRational?,
        globalHeader: Bool, repeatHeaders: Bool = false
    ) throws {
        self.options = options
        shape = try graph.videoShape(of: sink)
        timeBase = try graph.timeBase(of: sink)
        self.frameRate = frameRate
        self.globalHeader = globalHeader
        self.repeatHeaders = repeatHeaders
    }

    func open() throws -> Encoder {
        let codec = options.videoCodec
        guard let name = codec.encoderName else {
            throw MediaError(.internalError, "video_codec \(codec) has no encoder")
        }
        // The size is known here for certain (the source's, scaled and turned): one the encoder refuses is
        // the options' fault, whatever its open would have said.
        try codec.sizeLimit?.check(width: shape.width, height: shape.height, what: "the output picture")
        return try Encoder(named: name, options: privateOptions()) { context in
            context.pointee.width = Int32(shape.width)
            context.pointee.height = Int32(shape.height)
            context.pointee.pix_fmt = shape.pixelFormat
            context.pointee.sample_aspect_ratio = shape.sampleAspectRatio
            context.pointee.time_base = timeBase
            if let frameRate { context.pointee.framerate = frameRate }
            context.pointee.thread_count = 0
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            // 0 unless a bit rate is asked for: libvpx would read a nonzero rate with `crf` as a cap.
            context.pointee.bit_rate = Int64(options.videoBitrate ?? 0)
            if let maxBitrate = options.maxBitrate { context.pointee.rc_max_rate = Int64(maxBitrate) }
            if let bufferSize = options.bufferSize { context.pointee.rc_buffer_size = Int32(bufferSize) }
            if let gop = options.gop {
                context.pointee.gop_size = Int32(gop)
                context.pointee.keyint_min = Int32(gop)
            }
            if let bframes = options.bframes { context.pointee.max_b_frames = Int32(bframes) }
            if options.profile == .baseline { context.pointee.max_b_frames = 0 }
        }
    }

    /// The encoder's private options (`AVOption`s of libx264, libx265, libsvtav1, libvpx-vp9).
    private func privateOptions() -> [String: String] {
        var values: [String: String] = [:]
        let crf = options.effectiveCRF
        switch options.videoCodec {
        case .h264:
            if let crf { values["crf"] = String(crf) }
            if let preset = options.preset { values["preset"] = preset.rawValue }
            if let profile = options.profile { values["profile"] = profile.rawValue }
            if let level = options.level { values["level"] = level }
            // A fixed GOP: no keyframe at scene cuts, and every keyframe an IDR.
            if options.gop != nil { values["sc_threshold"] = "0" }
            if repeatHeaders { values["x264-params"] = "repeat-headers=1" }
        case .hevc:
            if let crf { values["crf"] = String(crf) }
            if let preset = options.preset { values["preset"] = preset.rawValue }
            if let profile = options.profile { values["profile"] = profile.rawValue }
            var params: [String] = ["log-level=error"]
            if let level = options.level { params.append("level-idc=\(level)") }
            if let gop = options.gop { params += ["keyint=\(gop)", "min-keyint=\(gop)", "scenecut=0", "open-gop=0"] }
            if let bframes = options.bframes { params.append("bframes=\(bframes)") }
            if repeatHeaders { params.append("repeat-headers=1") }
            values["x265-params"] = params.joined(separator: ":")
        case .av1:
            if let crf { values["crf"] = String(crf) }
            values["preset"] = String((options.preset ?? .medium).svtPreset)
            if options.gop != nil { values["svtav1-params"] = "scd=0" }
        case .vp9:
            if let crf { values["crf"] = String(crf) }
            values["cpu-used"] = String((options.preset ?? .medium).vpxCPUUsed)
            values["row-mt"] = "1"
        case .copy, .none:
            break
        }
        return values
    }
}
