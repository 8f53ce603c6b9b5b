extension EncodeJob.Options {
    /// The output container: audio-only ones for PCM, Annex-B streams and video containers for camera
    /// frames (with their PCM beside them in the containers).
    public enum Format: String, Sendable, Codable, CaseIterable {
        case m4a, adts, mp4, wav, mov, mkv, ts
        /// Annex-B H.264 or H.265: the parameter sets before every keyframe, no container.
        case h264, h265

        /// The libav muxer that writes this format.
        public var muxerName: String {
            switch self {
            case .m4a: "ipod"
            case .adts: "adts"
            case .mp4: "mp4"
            case .wav: "wav"
            case .mov: "mov"
            case .mkv: "matroska"
            case .ts: "mpegts"
            case .h264: "h264"
            case .h265: "hevc"
            }
        }

        var fileExtension: String { self == .adts ? "aac" : rawValue }

        /// Whether raw frames encode to it (every format but the audio ones).
        var carriesVideo: Bool { ![.m4a, .adts, .wav].contains(self) }

        /// Whether PCM alone encodes to it: the audio formats and MP4.
        var takesAudioAlone: Bool { [.m4a, .adts, .mp4, .wav].contains(self) }

        /// Whether it is a raw Annex-B stream, which holds video alone.
        var isAnnexB: Bool { self == .h264 || self == .h265 }

        /// The codec an Annex-B format names, and the default of the containers (H.264, what phones write).
        var defaultVideoCodec: EncodeJob.VideoCodec { self == .h265 ? .hevc : .h264 }

        /// Transcode's format of the same container, whose rules check what the video options ask of it
        /// (Annex-B carries what Matroska carries: H.264 and H.265).
        var transcodeFormat: TranscodeJob.Format {
            switch self {
            case .mov: .mov
            case .ts: .ts
            case .mp4: .mp4
            default: .mkv
            }
        }

        /// Muxer options. The ISO formats put the moov box first so playback can start at once; with audio
        /// alone they count movie time in samples so the edit list that hides the priming ends on the exact
        /// last sample (the default millisecond timescale would round it).
        func muxerOptions(sampleRate: Int?) -> [String: String] {
            guard self == .m4a || self == .mp4 || self == .mov else { return [:] }
            var options = ["movflags": "+faststart"]
            if let sampleRate { options["movie_timescale"] = String(sampleRate) }
            return options
        }
    }
}

extension EncodeJob {
    /// The codec camera frames are encoded with.
    public enum VideoCodec: String, Sendable, Codable, CaseIterable {
        case h264, hevc

        /// Transcode's codec of the same name, whose encoder setup encode shares.
        var transcodeCodec: TranscodeJob.VideoCodec { self == .hevc ? .hevc : .h264 }
    }

    /// The layout of raw camera frames: planar I420 or NV12 (a luma plane, then interleaved chroma), what
    /// camera pipelines hand over.
    public enum PixelFormat: String, Sendable, Codable, CaseIterable {
        case yuv420p, nv12
    }
}
