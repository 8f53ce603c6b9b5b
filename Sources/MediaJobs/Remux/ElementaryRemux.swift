import MediaCore

/// Remux of a raw ADTS or Annex-B file: there are no timestamps to copy, so the mux job times it
/// (AAC by frame count, video by picture order at `fps`) and writes the container.
struct ElementaryRemux {
    let job: RemuxJob
    let container: InputContainer

    func run(_ context: JobContext) throws -> RemuxResult {
        let options = job.options
        if options.start != nil || options.end != nil {
            throw MediaError(
                .invalidOption,
                "start and end need timestamps, which raw \(container.displayName) has none of; remux it once, then trim the result"
            )
        }
        if options.fragmented || (options.format.isISOBaseMedia && !options.faststart) {
            throw MediaError(
                .invalidOption,
                "raw \(container.displayName) input is written with moov first; fragmented and faststart=false need a container input"
            )
        }
        let isAudio = container == .adts
        if options.tracks == (isAudio ? .video : .audio) {
            throw MediaError(
                .missingStream, "the \(container.displayName) input has no \(options.tracks.rawValue) track")
        }
        var warnings: [String] = []
        if isAudio, options.fps != nil { warnings.append("fps was not used: the input has no video") }
        let fps = options.fps ?? FrameRate(numerator: 25, denominator: 1)
        if !isAudio, options.fps == nil {
            warnings.append("raw \(container.displayName) carries no frame rate: timed at 25 fps (set fps to change)")
        }
        let mux = MuxJob(
            audio: isAudio ? job.input : nil, video: isAudio ? nil : job.input, output: job.output,
            options: MuxJob.Options(format: options.format, fps: fps), salvagesCutEnd: options.damaged == .salvage)
        let result = try mux.run(context)
        return RemuxResult(
            outputs: result.outputs, warnings: warnings + result.warnings, muxer: options.format.muxerName,
            tracks: [
                RemuxResult.Track(
                    inputIndex: 0, outputIndex: 0, kind: isAudio ? "audio" : "video",
                    codec: isAudio ? "aac" : result.videoCodec ?? container.rawValue,
                    packets: isAudio ? result.audioFrames : result.videoFrames)
            ],
            cutStart: nil, cutEnd: nil)
    }
}
