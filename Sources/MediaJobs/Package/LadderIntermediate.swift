import CFFmpeg
import MediaCore

/// Encodes a ladder into one intermediate MP4 that the stream-copy packager then cuts: a video track per
/// rendition (largest first, from `LadderEncoder`), then every audio track of the source, AAC copied as it
/// is and any other codec encoded once to AAC, each with its language.
///
/// The file lives beside the package only while it is made: the caller removes it once the segments are
/// written. Its tracks all start where the source starts, so the packager's common origin keeps them in
/// step.
struct LadderIntermediate {
    let plan: LadderPlan
    let options: PackageJob.Options

    /// What encoding wrote: warnings, and for each track of the intermediate file the source track it
    /// came from.
    struct Encoded {
        var warnings: [String]
        var sourceIndices: [Int]
    }

    /// The bit rate audio that is not AAC is encoded at.
    static let audioBitRate = 128_000

    /// Encodes `source` into the MP4 file `path`, reporting progress from `progress.lowerBound` to its upper
    /// bound.
    func encode(
        _ source: InputFile, to path: String, context: JobContext, progress: ClosedRange<Double>
    ) throws -> Encoded {
        let output = try OutputFile(path: path, muxer: "mp4", durable: false)
        let origin = source.startTime
        let video = try LadderEncoder(
            plan: plan, input: source, origin: origin, preset: options.preset ?? PackageJob.Options.defaultPreset,
            segmentDuration: options.segmentDuration, output: output)
        var warnings: [String] = []
        let audio: [TrackPipeline] = try plan.audio.map { stream in
            let parameters = stream.pointee.codecpar.pointee
            let pipeline: TrackPipeline
            if parameters.codec_id == AV_CODEC_ID_AAC, parameters.extradata_size > 0 {
                pipeline = try CopiedTrack(stream: stream, format: .mp4, origin: origin, output: output)
            } else {
                let transcoder = try AudioTranscoder(
                    stream: stream, input: source,
                    options: TranscodeJob.Options(format: .mp4, audioCodec: .aac, audioBitrate: Self.audioBitRate),
                    window: TimeWindow(origin: origin), gain: nil, output: output)
                warnings += transcoder.warnings
                pipeline = transcoder
            }
            if let language = MediaInfo.Track(describing: stream).language {
                av_dict_set(&pipeline.track.stream.pointee.metadata, "language", language, 0)
            }
            return pipeline
        }
        try output.writeHeader()
        let byStream = Dictionary(uniqueKeysWithValues: audio.map { ($0.inputIndex, $0) })
        let packet = Packet()
        let span = progress.upperBound - progress.lowerBound
        while try source.read(into: packet) {
            try context.checkpoint()
            if packet.streamIndex == video.inputIndex {
                try video.send(packet)
            } else if let pipeline = byStream[packet.streamIndex] {
                try pipeline.send(packet)
            }
            context.reportProgress(progress.lowerBound + span * source.progress)
        }
        try video.finish()
        for pipeline in audio { try pipeline.finish() }
        try output.finish()
        let sourceIndices =
            plan.renditions.map { _ in video.inputIndex } + audio.map(\.inputIndex)
        return Encoded(warnings: warnings, sourceIndices: sourceIndices)
    }
}
