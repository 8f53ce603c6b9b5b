import MediaCore

/// Every job kind mediad runs. The command line, the HTTP routes, the worker, upload screening and the
/// OpenAPI check iterate this list; a new kind is added here and in its own folder.
public enum JobCatalog {
    /// In the order help texts and error messages list them.
    public static let kinds: [JobKind] = [
        EncodeJob.kind, DecodeJob.kind, MuxJob.kind, DemuxJob.kind, RemuxJob.kind, TranscodeJob.kind,
        PackageJob.kind, ThumbnailsJob.kind, WaveformJob.kind, RepairJob.kind,
    ]

    /// The kinds' names, in catalog order.
    public static var names: [String] { kinds.map(\.rawValue) }

    /// `POST /probe`: what is inside the file at `path`, with each audio track's loudness when asked,
    /// capped for reporting (`MediaInfo.reported`). Probe is synchronous and has no job record, so it is
    /// not one of `kinds`.
    public static func probe(_ path: String, loudness: Bool = false) throws -> MediaInfo {
        try ProbeJob(input: path, loudness: loudness).run().reported()
    }
}
