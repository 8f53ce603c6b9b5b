import JobStore
import MediaCore
import MediaJobs

/// Refuses, at upload time, an input that is obviously not what its job reads — a playlist, a concat
/// list, text or random bytes named `.mp4`, a WAV sent to decode — by its first bytes, with the same
/// classification the engine applies, so no job is queued for it (415 `unsupported_format`, or 400
/// `empty_input`).
enum InputScreen {
    /// Checks the file received for `part` of a job of `kind`.
    static func check(_ path: String, part: String, kind: JobKind) throws {
        switch kind {
        case .remux: _ = try InputFile.classify(path: path, accepting: RemuxJob.acceptedInputs)
        case .demux: _ = try InputFile.classify(path: path, accepting: DemuxJob.acceptedInputs)
        case .decode: _ = try InputFile.classify(path: path, accepting: DecodeJob.acceptedInputs)
        case .mux:
            _ = try InputFile.classify(
                path: path, accepting: part == "audio" ? MuxJob.acceptedAudio : MuxJob.acceptedVideo)
        case .encode:
            // Raw PCM has no signature: anything that is not another recognised container may be PCM.
            switch try InputSniffer.sniff(path: path) {
            case .empty: throw MediaError(.emptyInput, "the input file is empty")
            case .container(.wav), .unrecognized: return
            case .container(let container):
                throw MediaError(
                    .unsupportedFormat, "the input is \(container.displayName); encode takes raw PCM or WAV")
            }
        }
    }
}
