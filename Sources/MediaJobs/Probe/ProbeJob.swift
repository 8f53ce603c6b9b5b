import CFFmpeg
import MediaCore

/// Reports what is inside a media file: container, duration, size and every track's parameters, and with
/// `loudness` each audio track's EBU R128 loudness (which decodes the whole track).
public struct ProbeJob: Sendable {
    /// Probe reads every format mediad knows.
    public static let acceptedInputs = InputContainer.allCases

    public var input: String
    /// Whether to measure the loudness of every audio track.
    public var loudness: Bool

    public init(input: String, loudness: Bool = false) {
        self.input = input
        self.loudness = loudness
    }

    public func run(_ context: JobContext = JobContext()) throws -> MediaInfo {
        // A damaged file is described as far as libav reads it, with the damage in `warnings`.
        let source = try InputFile(
            path: input, accepting: Self.acceptedInputs, policy: InputPolicy.streamCopy.handling(damaged: .salvage))
        try context.checkpoint()
        try source.findStreamInfo()
        var info = MediaInfo(describing: source)
        if loudness {
            let audio = source.streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
            for (done, stream) in audio.enumerated() {
                let index = Int(stream.pointee.index)
                let meter = LoudnessMeter(path: input, container: source.container, index: index)
                let share = 1 / Double(audio.count)
                var trackContext = context
                trackContext.reportProgress = { context.reportProgress((Double(done) + $0) * share) }
                info.tracks[index].loudness = try meter.measure(trackContext)
            }
        }
        context.reportProgress(1)
        return info
    }
}
