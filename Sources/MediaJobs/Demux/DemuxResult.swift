import MediaCore

/// What a demux wrote: one elementary stream file per extracted track, and `info.json`.
public struct DemuxResult: JobResult, Equatable {
    public var outputs: [String]
    public var warnings: [String]
    /// The probe of the input, with each track's `output` file or `skipped` reason filled in, and its tags
    /// capped for reporting (`MediaInfo.reported`); `info.json` has them whole.
    public var info: MediaInfo
}
