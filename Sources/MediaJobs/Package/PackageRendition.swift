import CFFmpeg

/// One packaged track as the manifests describe it: its segments, their real durations and its bit rates.
struct PackageRendition {
    let track: PackagePlan.Track
    let segments: [TrackSegmenter.Segment]
    let durations: [Double]
    /// The same durations in `timeBase` (`TrackSegmenter.ticks`).
    let ticks: [Int64]
    let initialization: String?
    let timeBase: AVRational
    /// Its HLS media playlist's output name, `720p/index.m3u8`.
    var playlist: String { "\(track.folder)/index.m3u8" }

    /// Its HLS I-frame playlist's output name, when every segment opens with a keyframe whose bytes are
    /// known (fMP4 video).
    var iFramePlaylist: String? {
        !segments.isEmpty && segments.allSatisfy { $0.keyframeBytes != nil } ? "\(track.folder)/iframes.m3u8" : nil
    }

    /// The highest bit rate of the keyframes alone, each over its segment's duration (`BANDWIDTH` of
    /// `EXT-X-I-FRAME-STREAM-INF`).
    var iFrameBandwidth: Int {
        zip(segments, durations).map { segment, duration in
            duration > 0 ? Int((Double((segment.keyframeBytes ?? 0) * 8) / duration).rounded(.up)) : 0
        }.max() ?? 0
    }

    /// The rendition of `segmenter`'s first `count` segments (all of them by default): while the job runs,
    /// those whose duration is settled (`LivePlaylists`).
    init(_ segmenter: TrackSegmenter, segments count: Int? = nil) {
        let count = count ?? segmenter.segments.count
        track = segmenter.track
        segments = Array(segmenter.segments.prefix(count))
        durations = Array(segmenter.durations.prefix(count))
        ticks = Array(segmenter.ticks.prefix(count))
        initialization = segmenter.initialization
        timeBase = segmenter.timeBase
    }

    /// The highest bit rate of any segment (HLS `BANDWIDTH`, DASH `@bandwidth`).
    var bandwidth: Int {
        zip(segments, durations).map { segment, duration in
            duration > 0 ? Int((Double(segment.bytes * 8) / duration).rounded(.up)) : 0
        }.max() ?? 0
    }

    /// Bits per second over the whole track (HLS `AVERAGE-BANDWIDTH`).
    var averageBandwidth: Int {
        let seconds = durations.reduce(0, +)
        guard seconds > 0 else { return bandwidth }
        return Int((Double(segments.reduce(0) { $0 + $1.bytes } * 8) / seconds).rounded(.up))
    }

    /// Seconds from the track's first sample to its last sample's end.
    var span: Double { durations.reduce(0, +) }

    /// The result's description of it.
    func summary(hasPlaylist: Bool) -> PackageResult.Rendition {
        var summary = PackageResult.Rendition(
            name: track.folder, kind: track.isVideo ? "video" : "audio", inputIndex: track.sourceIndex,
            codec: track.codec, codecs: track.codecString, bandwidth: bandwidth, averageBandwidth: averageBandwidth,
            language: track.language, playlist: hasPlaylist ? playlist : nil, initialization: initialization,
            segmentDurations: durations)
        switch track.media {
        case .video(let width, let height, let rate):
            (summary.width, summary.height) = (width, height)
            summary.frameRate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : nil
        case .audio(let channels, let sampleRate):
            (summary.channels, summary.sampleRate) = (channels, sampleRate)
        }
        return summary
    }
}
