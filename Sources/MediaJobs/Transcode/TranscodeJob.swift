import CFFmpeg
import Foundation
import MediaCore

/// Re-encodes a file: demux → decode → libavfilter (cut, upright, fps, scale, pixel format; resample and
/// mix) → encode → mux, one `TrackPipeline` per kept track, in the shape of FFmpeg's
/// `doc/examples/transcode.c`.
///
/// The first video track and the first audio track of the input are kept (cover art is not video). The
/// ISO formats are written with the moov first, or fragmented.
public struct TranscodeJob: Sendable {
    /// The containers transcode reads: those remux reads.
    public static let acceptedInputs = RemuxJob.acceptedInputs

    var input: String
    var output: String
    var options: Options

    func run(_ context: JobContext) throws -> TranscodeResult {
        try options.validate()
        let began = Date()
        let container = try InputFile.classify(path: input, accepting: Self.acceptedInputs)
        let source = try InputFile(path: input, container: container, policy: .transcoding)
        try source.findStreamInfo()
        let streams = try SourceTracks(input: source, options: options)
        let origin = source.startTime
        let window = TimeWindow(origin: origin, start: options.start, end: options.end)
        if let start = options.start, let duration = source.duration, start >= duration {
            throw MediaError(.emptySelection, "start (\(start) s) is past the end of the input (\(duration) s)")
        }
        let destination = try OutputFile(path: output, muxer: options.format.muxerName)
        var pipelines: [TrackPipeline] = []
        var warnings = streams.warnings
        var normalisation: Normalisation?
        if let video = streams.video {
            if options.videoCodec == .copy {
                pipelines.append(
                    try CopiedTrack(stream: video, format: options.format, origin: origin, output: destination))
            } else {
                let rotation = VideoRotation(stream: video, keep: options.rotate == .keep)
                if rotation.keptMatrix != nil, !options.format.isISOBaseMedia {
                    warnings.append(
                        "rotate=keep: \(options.format.rawValue) cannot store the \(rotation.clockwiseDegrees)° rotation; "
                            + "the pictures are written as coded")
                }
                pipelines.append(
                    try VideoTranscoder(
                        stream: video, input: source, options: options, window: window, rotation: rotation,
                        output: destination))
            }
        }
        if let audio = streams.audio {
            if options.resolvedAudioCodec == .copy {
                pipelines.append(
                    try CopiedTrack(stream: audio, format: options.format, origin: origin, output: destination))
            } else {
                let plan = try AudioTranscoder.Plan(
                    source: Decoder(stream: audio, of: source).outputFormat, track: Int(audio.pointee.index),
                    options: options)
                normalisation = try options.loudness.map { target in
                    try Normalisation(
                        target: target, ceiling: options.truePeak ?? -1,
                        input: LoudnessPass.measure(input, after: window.filters(prefix: "a") + plan.mix, context))
                }
                warnings += normalisation?.warnings ?? []
                let transcoder = try AudioTranscoder(
                    stream: audio, input: source, options: options, window: window, plan: plan,
                    gain: normalisation?.gain, output: destination)
                warnings += transcoder.warnings
                pipelines.append(transcoder)
            }
        }
        try destination.writeHeader(options: muxerOptions(hasVideo: streams.video != nil))
        if let start = options.start, start > 0, Self.indexedInputs.contains(container) {
            try seek(source, to: origin + start)
        }
        try pump(source, into: pipelines, expected: window.expectedDuration(inputDuration: source.duration), context)
        for pipeline in pipelines { try pipeline.finish() }
        guard pipelines.contains(where: { $0.track.packets > 0 }) else {
            throw MediaError(
                options.start != nil || options.end != nil ? .emptySelection : .emptyInput,
                "no frames or samples fall between start and end of the input")
        }
        try destination.finish { path in
            if options.fragmented && options.globalSidx != false { try MovieExtendsHeader.insert(intoFileAt: path) }
        }
        context.reportProgress(1)
        let seconds = Date().timeIntervalSince(began)
        let profiles = ProfileName.ofTracks(inFileAt: output, count: pipelines.count)
        let tracks = zip(pipelines, profiles).map { pipeline, profile in
            var track = pipeline.report()
            track.profile = profile
            return track
        }
        let longest = tracks.map(\.duration).max() ?? 0
        let quality = try streams.video.flatMap { video in
            options.measure == .none
                ? nil
                : try QualityMeter(
                    measure: options.measure, options: options, window: window,
                    rotation: VideoRotation(stream: video, keep: options.rotate == .keep)
                ).score(output: output, source: input, context)
        }
        let loudness = try normalisation.map { normalisation in
            TranscodeResult.Loudness(
                target: Double(normalisation.target), gain: normalisation.gain, input: normalisation.input,
                output: options.format == .mp3 ? nil : try LoudnessPass.measure(output, after: [], context))
        }
        return TranscodeResult(
            outputs: [output], warnings: warnings, muxer: options.format.muxerName, tracks: tracks,
            speed: seconds > 0 ? (longest / seconds * 100).rounded() / 100 : 0, quality: quality, loudness: loudness)
    }

    /// Reads the input and hands each packet to its track until the input ends or every track has reached
    /// `end`; reports progress by the output time reached.
    private func pump(
        _ source: InputFile, into pipelines: [TrackPipeline], expected: Double?, _ context: JobContext
    ) throws {
        let byStream = Dictionary(uniqueKeysWithValues: pipelines.map { ($0.inputIndex, $0) })
        let packet = Packet()
        while try source.read(into: packet) {
            try context.checkpoint()
            guard let pipeline = byStream[packet.streamIndex] else { continue }
            try pipeline.send(packet)
            if let expected, expected > 0 {
                let reached = pipelines.map(\.track.reachedSeconds).min() ?? 0
                context.reportProgress(min(0.99, reached / expected))
            } else {
                context.reportProgress(source.progress * 0.99)
            }
            if pipelines.allSatisfy(\.isComplete) { break }
        }
    }

    /// The containers with an index of keyframes (ISO `stss`, Matroska cues), where a seek lands on the
    /// keyframe before a time. Elsewhere (MPEG-TS, FLV, raw streams) libav seeks by bisecting the bytes
    /// and may land past it, so the input is decoded from its start.
    static let indexedInputs: [InputContainer] = [.mp4, .matroska]

    /// Moves the input to the last keyframe at or before `seconds`, so the frames before the cut are not
    /// all decoded; the filters then drop the few between that keyframe and the cut.
    private func seek(_ source: InputFile, to seconds: Double) throws {
        let target = Int64((seconds * Double(AV_TIME_BASE)).rounded(.down))
        let result = avformat_seek_file(source.context, -1, Int64.min, target, target, 0)
        if result < 0 {
            try LibavError.check(
                avformat_seek_file(source.context, -1, Int64.min, 0, 0, 0), "seeking back to the input's start")
        }
    }

    /// faststart for the ISO formats, or the fragmenting flags remux uses.
    private func muxerOptions(hasVideo: Bool) throws -> [String: String] {
        let iso: [TranscodeJob.Format: ContainerFormat] = [.mp4: .mp4, .mov: .mov, .m4a: .m4a]
        guard let container = iso[options.format] else { return [:] }
        return try RemuxJob.Options(format: container, fragmented: options.fragmented, globalSidx: options.globalSidx)
            .muxerOptions(hasVideo: hasVideo)
    }
}
