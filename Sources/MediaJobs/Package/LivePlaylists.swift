/// Publishes an HLS package's playlists while its segments are written, so that a player can start before
/// the job ends (`GET /jobs/{id}/outputs/{name}` serves each as it is now: `OutputGrowth.replaced`).
///
/// After each cut every rendition's media playlist is replaced (temporary file, then rename) by an
/// `EVENT` playlist (RFC 8216 §4.3.3.5) of its settled segments, without `#EXT-X-ENDLIST`: all its segments
/// but the last one closed, whose duration ends where the next segment starts (`TrackSegmenter.durations`),
/// which is known once that one is closed too. So every line a version holds stays the same in every later
/// one, as §6.2.1 asks of an `EVENT` playlist; the final playlists (`PackageJob.writeManifests`) only
/// append the last segments and `#EXT-X-ENDLIST`. The master playlist is written once, as soon as every
/// rendition has a settled segment, with `BANDWIDTH` and `AVERAGE-BANDWIDTH` measured on the segments
/// settled then (the peak and the mean of what was muxed so far), and without the I-frame variants, whose
/// playlists are written at the end; the final master replaces it with the rates of the whole package.
///
/// `EXT-X-TARGETDURATION` must not change either (§6.2.1): it is the target segment length rounded up, or
/// the longest settled segment (rounded to the nearest second, §4.3.3.1) when the first publication finds
/// a longer one. Segments end at keyframes, so a source whose keyframes come later than that can give a
/// longer segment afterwards: the playlists then stop growing (each version stays valid, just no longer
/// current), a warning says so, and the final playlists announce the longer target.
final class LivePlaylists {
    private let files: PackageFiles
    private let segmentFormat: PackageJob.SegmentFormat
    /// The `EXT-X-TARGETDURATION` the media playlists announce; fixed at the first publication.
    private(set) var targetDuration: Int
    private var announced = false
    /// Segments published per rendition folder.
    private var published: [String: Int] = [:]
    private var masterWritten = false
    /// Why the playlists stopped growing, once they have.
    private(set) var stopped: String?

    init(files: PackageFiles, segmentFormat: PackageJob.SegmentFormat, segmentDuration: Double) {
        self.files = files
        self.segmentFormat = segmentFormat
        targetDuration = max(1, Int(segmentDuration.rounded(.up)))
    }

    /// After a cut: replaces the media playlist of each rendition that has newly settled segments, and
    /// writes the master playlist once every rendition has one.
    func publish(_ segmenters: [TrackSegmenter]) throws {
        guard stopped == nil else { return }
        let renditions = segmenters.map { PackageRendition($0, segments: max(0, $0.segments.count - 1)) }
        let grown = renditions.filter { $0.segments.count > published[$0.track.folder, default: 0] }
        guard !grown.isEmpty else { return }
        let longest = grown.flatMap(\.durations).map(HLSPlaylists.rounded).max() ?? 0
        if !announced {
            targetDuration = max(targetDuration, longest)
            announced = true
        } else if longest > targetDuration {
            stopped =
                "a segment lasts \(longest) s (keyframes further apart than segment_duration): the playlists "
                + "published while the job ran announced EXT-X-TARGETDURATION \(targetDuration) and stopped "
                + "growing there; the final playlists announce the longest segment's length"
            return
        }
        let playlists = HLSPlaylists(
            renditions: renditions, segmentFormat: segmentFormat, targetDuration: targetDuration)
        for rendition in grown {
            try files.write(playlists.mediaPlaylist(rendition, ended: false), as: rendition.playlist)
            published[rendition.track.folder] = rendition.segments.count
        }
        if !masterWritten, renditions.allSatisfy({ !$0.segments.isEmpty }) {
            try files.write(playlists.masterPlaylist(withIFrames: false), as: PackageJob.hlsMasterName)
            masterWritten = true
        }
    }
}
