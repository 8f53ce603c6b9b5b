/// How a job writes one of its outputs, which says whether the output can be read while the job runs
/// (`GET /jobs/{id}/outputs/{name}` on a running job follows it, or sends what it is now) or only once the
/// job succeeded.
///
/// Every output is written to a hidden temporary file beside its name and renamed into place when it is
/// complete (`OutputFile`); an appended output's temporary file only ever grows, so what a reader has read
/// of it is the start of the final file.
public enum OutputGrowth: Sendable, Equatable {
    /// Written front to back and never changed once written: MPEG-TS, ADTS, raw streams, Y4M, fragmented
    /// MP4 without a global `sidx`.
    case appended
    /// Rewritten when the job ends (a header or index completed then: faststart MP4, Matroska's duration
    /// and cues, WAV's sizes) or written whole then: readable once the job succeeded.
    case completedAtEnd
    /// Written whole under its name while the job runs, each version complete (temporary file, then
    /// rename), and possibly replaced whole by a newer one: a package's media segments (written once) and
    /// its HLS playlists and DASH MPD (rewritten, longer, after each segment). Readable while the job runs
    /// as the file is now, once it exists under its name.
    case replaced
}

extension MediaJob {
    /// Any output of a kind that says nothing is readable once the job succeeded.
    public static func growth(ofOutput name: String, options: Options) -> OutputGrowth? { .completedAtEnd }

    static func growth(ofOutput name: String, options: JobOptions) throws -> OutputGrowth? {
        growth(ofOutput: name, options: try options.typed(Options.self))
    }

    /// The growth of a kind that writes its primary output alone: `appended` when `appends`, nil (never
    /// written) for any other name.
    static func primaryOnly(_ name: String, options: Options, appends: Bool) -> OutputGrowth? {
        guard name == primaryOutput(for: options) else { return nil }
        return appends ? .appended : .completedAtEnd
    }
}

extension JobKind {
    /// How a job of this kind with `options` writes the output `name`; nil when it never writes one of that
    /// name (`MediaJob.growth(ofOutput:options:)`).
    public func growth(ofOutput name: String, options: JobOptions) throws -> OutputGrowth? {
        try job.growth(ofOutput: name, options: options)
    }
}
