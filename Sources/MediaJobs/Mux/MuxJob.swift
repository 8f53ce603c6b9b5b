import CFFmpeg
import Foundation
import MediaCore

/// Puts a raw ADTS AAC stream and/or a raw H.264/H.265 Annex-B stream into a container.
///
/// Neither input carries timestamps: audio is timed by its frame count, video by picture order counts
/// at the `fps` option (see `AnnexBVideoSource`). Packets are written in decoding-time order across the
/// tracks, so the muxer never has to buffer one track while waiting for the other.
public struct MuxJob: Sendable {
    /// What the audio input may be.
    public static let acceptedAudio: [InputContainer] = [.adts]
    /// What the video input may be.
    public static let acceptedVideo: [InputContainer] = [.h264, .hevc]

    /// The options of a mux job.
    public struct Options: Sendable, Codable, Equatable {
        /// The container to write.
        public var format: ContainerFormat
        /// The video frame rate; raw video streams carry none that mediad trusts.
        public var fps: FrameRate

        public init(format: ContainerFormat = .mp4, fps: FrameRate = FrameRate(numerator: 25, denominator: 1)) {
            self.format = format
            self.fps = fps
        }

        /// Decodes stored options with the defaults `init(parsing:)` applies.
        public init(from decoder: Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Options()
            format = try container.decodeIfPresent(ContainerFormat.self, forKey: .format) ?? defaults.format
            fps = try container.decodeIfPresent(FrameRate.self, forKey: .fps) ?? defaults.fps
        }

        /// Reads `format` and `fps`; any other key is an error.
        public init(parsing values: [String: String]) throws {
            var reader = OptionReader(values)
            let defaults = Options()
            format = try reader.choice("format", as: ContainerFormat.self) ?? defaults.format
            fps = try reader.frameRate("fps") ?? defaults.fps
            try reader.finish()
        }
    }

    /// Path of the ADTS AAC input.
    var audio: String?
    /// Path of the H.264/H.265 Annex-B input.
    var video: String?
    var output: String
    var options: Options
    /// Whether an ADTS input whose last frame the end of the file cuts is muxed without that frame, with a
    /// `truncated_input` warning (remux's `damaged=salvage`), rather than refused.
    var salvagesCutEnd = false

    func run(_ context: JobContext) throws -> MuxResult {
        let format = options.format
        guard audio != nil || video != nil else {
            throw MediaError(.invalidOption, "mux needs an audio input, a video input or both")
        }
        if format == .m4a && video != nil {
            throw MediaError(.invalidOption, "m4a holds audio only; choose mp4, mov, mkv, asf, flv or ts for video")
        }
        let frameRate = try exactFrameRate()
        if let audio {
            _ = try InputFile.classify(path: audio, accepting: Self.acceptedAudio)
            try Self.check(format, carries: AV_CODEC_ID_AAC)
        }
        let videoInput = try video.map {
            (path: $0, codec: try InputFile.classify(path: $0, accepting: Self.acceptedVideo))
        }
        if let videoInput {
            try Self.check(format, carries: videoInput.codec == .hevc ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264)
        }

        let totalBytes = Double(max(1, fileSize(audio) + 2 * fileSize(video)))
        let progress = { @Sendable (bytes: Int64) throws in
            try context.checkpoint()
            context.reportProgress(Double(bytes) / totalBytes)
        }
        // Audio first: its checks are cheap, the video's first pass reads the whole file.
        let audioSource = try audio.map { try ADTSSource(path: $0, salvagesCutEnd: salvagesCutEnd) }
        let videoSource = try videoInput.map {
            try AnnexBVideoSource(path: $0.path, codec: $0.codec, frameRate: frameRate, scanned: progress)
        }
        let sources = ([videoSource, audioSource] as [(any PacketSource)?]).compactMap { $0 }

        let file = try OutputFile(path: output, muxer: format.muxerName)
        for source in sources {
            let stream = try file.addStream(copying: source.codecParameters, timeBase: source.timeBase)
            stream.pointee.codecpar.pointee.bit_rate = source.averageBitRate
            if source === videoSource { stream.pointee.avg_frame_rate = frameRate }
        }
        // The ISO formats put the index (moov) before the media data so playback can start while downloading.
        try file.writeHeader(options: format.isISOBaseMedia ? ["movflags": "+faststart"] : [:])
        try interleave(sources, into: file, progress: progress)
        try file.finish()
        context.reportProgress(1)
        return result(video: videoSource, audio: audioSource)
    }

    /// Throws `unsupported_codec` when libav says `format` cannot store `codec`.
    private static func check(_ format: ContainerFormat, carries codec: AVCodecID) throws {
        guard format.carries(codec) else {
            throw MediaError(
                .unsupportedCodec,
                "\(format.displayName) output cannot carry \(String(cString: avcodec_get_name(codec))) streams")
        }
    }

    private func result(video: AnnexBVideoSource?, audio: ADTSSource?) -> MuxResult {
        let videoSeconds = video.map { Double($0.pictureCount) / options.fps.framesPerSecond } ?? 0
        let audioSeconds =
            audio.map {
                Double($0.frameCount * ADTSSource.samplesPerFrame) / Double($0.codecParameters.pointee.sample_rate)
            } ?? 0
        var warnings: [String] = []
        if let cut = audio?.cutEnd {
            warnings.append(
                "truncated_input: \(cut); that last frame could not be read; the output lasts "
                    + String(format: "%.3f s", max(videoSeconds, audioSeconds)))
        }
        if let dropped = video?.droppedUnits, dropped > 0 {
            warnings.append("dropped \(dropped) access unit(s) after the last picture of the video input")
        }
        if let video, video.timeline.delay > 0,
            let lost = ContainerLimits.lostPresentationOrder(format: options.format, track: "the video")
        {
            warnings.append(lost)
        }
        if let clock = ContainerLimits.stoppedClock(
            format: options.format, videoEnd: video.map { _ in videoSeconds }, audioEnd: audio.map { _ in audioSeconds }
        ) {
            warnings.append(clock)
        }
        return MuxResult(
            outputs: [output], warnings: warnings, format: options.format.rawValue,
            videoCodec: video.map { $0.codec == .hevc ? "hevc" : "h264" }, videoFrames: video?.pictureCount ?? 0,
            audioFrames: Int(audio?.frameCount ?? 0), durationSeconds: max(videoSeconds, audioSeconds))
    }

    /// Writes every packet of `sources` (stream i = source i) in decoding-time order.
    private func interleave(
        _ sources: [any PacketSource], into file: OutputFile, progress: (Int64) throws -> Void
    ) throws {
        let streamTimeBases = sources.indices.map { file.stream($0).pointee.time_base }
        var pending: [Packet?] = try sources.map { source in
            let packet = Packet()
            return try source.read(into: packet) ? packet : nil
        }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            av_compare_ts(pending[a]?.dts ?? 0, sources[a].timeBase, pending[b]?.dts ?? 0, sources[b].timeBase) < 0
        }
        while let index = pending.indices.filter({ pending[$0] != nil }).min(by: precedes), let packet = pending[index]
        {
            packet.streamIndex = index
            packet.rescale(from: sources[index].timeBase, to: streamTimeBases[index])
            try file.write(packet)
            if !(try sources[index].read(into: packet)) { pending[index] = nil }
            try progress(sources.reduce(0) { $0 + $1.bytesRead })
        }
    }

    /// `fps` as a libav rational, reduced to fit 32 bits (exact for every rate people use).
    private func exactFrameRate() throws -> AVRational {
        let fps = options.fps
        guard fps.isWithinLimits else {
            let limits = FrameRate.limits
            throw MediaError(
                .invalidOption,
                "invalid value '\(fps)' for option fps: expected \(limits.lowerBound) to \(limits.upperBound) "
                    + "frames per second")
        }
        var rate = AVRational()
        av_reduce(&rate.num, &rate.den, Int64(fps.numerator), Int64(fps.denominator), Int64(Int32.max))
        return rate
    }

    private func fileSize(_ path: String?) -> Int64 {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return 0 }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
