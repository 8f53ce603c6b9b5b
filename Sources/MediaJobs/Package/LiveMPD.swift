import Foundation

/// Publishes a DASH package's MPD while its segments are written, so that a player can start before the
/// job ends (`GET /jobs/{id}/outputs/manifest.mpd` serves it as it is now: `OutputGrowth.replaced`).
///
/// After each cut, once every representation has a settled segment, the MPD is replaced (temporary file,
/// then rename) by a `dynamic` one (ISO/IEC 23009-1 §5.4) whose `SegmentTimeline`s list the settled
/// segments: all but the last one closed, whose `d` runs to the next segment's start, known once that one is
/// closed too — as `LivePlaylists` does for HLS, so each segment a version lists keeps its `t` and `d` in
/// every later one. `availabilityStartTime` is when the package began (media time 0), the same in every
/// version and in the final `static` MPD, as an update must keep it; stream copy runs faster than real
/// time, so every segment is written before the time the MPD says it is available. `publishTime` is when
/// each version is written, and `minimumUpdatePeriod` the target segment length rounded up: players fetch
/// the MPD again about once a segment. No `timeShiftBufferDepth`: every segment stays available, from the first.
///
/// `suggestedPresentationDelay` is the input's duration, rounded up: a player that starts that far behind
/// the wall-clock live edge (`availabilityStartTime` plus the time since; GStreamer's `dashdemux` does)
/// starts at the first segment for as long as the job has run less time than the presentation lasts —
/// which stream copy always does, unless its worker is held — as one joining an HLS `EVENT` playlist does.
/// Without it such a player would start where the wall clock says the package is, which is past what is
/// written when the job runs slower than real time.
final class LiveMPD {
    private let files: PackageFiles
    /// `availabilityStartTime`, the same in every version and in the final MPD.
    let availabilityStart: Date
    private let dynamic: DASHManifest.Dynamic
    /// Segments the last version listed, over every representation.
    private var listed = 0

    /// `duration` is the input's length in seconds, when known.
    init(files: PackageFiles, segmentDuration: Double, duration: Double?, availabilityStart: Date = Date()) {
        self.files = files
        self.availabilityStart = availabilityStart
        dynamic = DASHManifest.Dynamic(
            updatePeriod: max(1, Int(segmentDuration.rounded(.up))),
            presentationDelay: duration.flatMap { $0 > 0 && $0 < 1e9 ? Int($0.rounded(.up)) : nil })
    }

    /// After a cut: replaces the MPD when a representation has newly settled segments and every one has
    /// at least one.
    func publish(_ segmenters: [TrackSegmenter]) throws {
        let renditions = segmenters.map { PackageRendition($0, segments: max(0, $0.segments.count - 1)) }
        let count = renditions.reduce(0) { $0 + $1.segments.count }
        guard count > listed, renditions.allSatisfy({ !$0.segments.isEmpty }) else { return }
        let manifest = DASHManifest(
            renditions: renditions, availabilityStart: availabilityStart, published: Date(), dynamic: dynamic)
        try files.write(manifest.document(), as: PackageJob.dashManifestName)
        listed = count
    }

    /// The final, `static` MPD of the whole package.
    func final(_ renditions: [PackageRendition]) -> String {
        DASHManifest(
            renditions: renditions, availabilityStart: availabilityStart, published: Date(), dynamic: nil
        ).document()
    }
}
