import CFFmpeg

/// Writes a package's HLS playlists (RFC 8216): an `EVENT` media playlist per rendition, beside its
/// segments, an I-frame playlist for fMP4 video, and the master playlist, whose variants are the video
/// renditions (or the first audio track) with the audio tracks as an `EXT-X-MEDIA` group. Every URI is
/// relative, so the playlists work wherever the files are served.
///
/// The media playlists are `EVENT` playlists while the job runs (`LivePlaylists`) and stay `EVENT`, with
/// `#EXT-X-ENDLIST` added, when it ends: RFC 8216 §6.2.1 lets a server change an `EVENT` playlist only by
/// appending to it ("MUST NOT change or remove any part" of it) and adding `EXT-X-ENDLIST`, so turning it
/// into `VOD` at the end would change a line a player that read it while the job ran already holds. With
/// `EXT-X-ENDLIST` players treat it as video on demand: the whole timeline, seekable, no reload.
struct HLSPlaylists {
    let renditions: [PackageRendition]
    let segmentFormat: PackageJob.SegmentFormat
    /// `EXT-X-TARGETDURATION`, the same in every version of a media playlist (RFC 8216 §6.2.1 forbids
    /// changing it): at least each segment's duration rounded to the nearest second (§4.3.3.1).
    let targetDuration: Int

    /// 7 for fMP4 segments (`EXT-X-MAP` outside I-frame playlists needs 6, and Apple's authoring rules ask
    /// 7 for fMP4); 3 for MPEG-TS, for decimal `EXTINF` durations.
    var version: Int { segmentFormat == .fmp4 ? 7 : 3 }

    /// The media playlist of `rendition`: its segments so far, with `#EXT-X-ENDLIST` once `ended`.
    func mediaPlaylist(_ rendition: PackageRendition, ended: Bool) -> String {
        playlist(rendition, iFramesOnly: false, ended: ended)
    }

    /// The I-frame playlist of a video rendition, written once when the job ends (so `VOD`): each segment's
    /// opening keyframe as a byte range of the segment (its `moof` and the frame), lasting until the next one.
    func iFramePlaylist(_ rendition: PackageRendition) -> String {
        playlist(rendition, iFramesOnly: true, ended: true)
    }

    /// A segment's duration as `EXT-X-TARGETDURATION` counts it: rounded to the nearest second.
    static func rounded(_ duration: Double) -> Int { Int(duration.rounded()) }

    private func playlist(_ rendition: PackageRendition, iFramesOnly: Bool, ended: Bool) -> String {
        let durations = rendition.durations
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:1", "#EXT-X-PLAYLIST-TYPE:\(iFramesOnly ? "VOD" : "EVENT")",
        ]
        if iFramesOnly { lines.append("#EXT-X-I-FRAMES-ONLY") }
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        if let initialization = rendition.initialization {
            lines.append("#EXT-X-MAP:URI=\"\(Self.fileName(initialization))\"")
        }
        for (segment, duration) in zip(rendition.segments, durations) {
            lines.append("#EXTINF:\(Self.decimal(duration, places: 6)),")
            if iFramesOnly, let bytes = segment.keyframeBytes { lines.append("#EXT-X-BYTERANGE:\(bytes)@0") }
            lines.append(Self.fileName(segment.name))
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The master playlist: a variant per video rendition (the ladder's, largest first), or the first
    /// audio track of an audio-only package, each with the audio group's peak and average rates added,
    /// and `withIFrames` an I-frame variant per video rendition that has one (their playlists are written
    /// when the job ends).
    func masterPlaylist(withIFrames: Bool) -> String {
        let videos = renditions.filter { $0.track.isVideo }
        let audio = renditions.filter { !$0.track.isVideo }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let grouped = !videos.isEmpty || audio.count > 1
        if grouped {
            for (position, rendition) in audio.enumerated() {
                lines.append(media(rendition, isDefault: position == 0, names: audio))
            }
        }
        let variants = videos.isEmpty ? Array(audio.prefix(1)) : videos
        let loudest = audio.map(\.bandwidth).max() ?? 0
        let averageAudio = audio.map(\.averageBandwidth).max() ?? 0
        let extra = videos.isEmpty ? (0, 0) : (loudest, averageAudio)
        for variant in variants {
            var codecs = [variant.track.codecString]
            for rendition in audio where !codecs.contains(rendition.track.codecString) {
                codecs.append(rendition.track.codecString)
            }
            var attributes = [
                "BANDWIDTH=\(variant.bandwidth + extra.0)",
                "AVERAGE-BANDWIDTH=\(variant.averageBandwidth + extra.1)",
                "CODECS=\"\(codecs.joined(separator: ","))\"",
            ]
            if case .video(let width, let height, let rate) = variant.track.media {
                attributes.append("RESOLUTION=\(width)x\(height)")
                if rate.num > 0, rate.den > 0 {
                    attributes.append("FRAME-RATE=\(Self.decimal(av_q2d(rate), places: 3))")
                }
            }
            if grouped, !audio.isEmpty { attributes.append("AUDIO=\"audio\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.playlist)
        }
        for video in videos where withIFrames {
            guard let iFrames = video.iFramePlaylist, case .video(let width, let height, _) = video.track.media else {
                continue
            }
            lines.append(
                "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(video.iFrameBandwidth),CODECS=\"\(video.track.codecString)\","
                    + "RESOLUTION=\(width)x\(height),URI=\"\(iFrames)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An audio track as an `EXT-X-MEDIA` rendition of the group `audio`, named by its language when that
    /// is unique among the tracks, else by its folder.
    private func media(_ rendition: PackageRendition, isDefault: Bool, names: [PackageRendition]) -> String {
        let track = rendition.track
        let sameLanguage = names.filter { $0.track.language == track.language }.count
        let name = track.language.flatMap { sameLanguage == 1 ? $0 : nil } ?? track.folder
        var attributes = ["TYPE=AUDIO", "GROUP-ID=\"audio\"", "NAME=\"\(name)\""]
        if let language = track.language { attributes.append("LANGUAGE=\"\(language)\"") }
        attributes.append("DEFAULT=\(isDefault ? "YES" : "NO")")
        attributes.append("AUTOSELECT=YES")
        if case .audio(let channels, _) = track.media, channels > 0 { attributes.append("CHANNELS=\"\(channels)\"") }
        attributes.append("URI=\"\(rendition.playlist)\"")
        return "#EXT-X-MEDIA:" + attributes.joined(separator: ",")
    }

    /// The last component of an output name: a URI relative to the playlist in the same folder.
    private static func fileName(_ name: String) -> String { String(name.split(separator: "/").last ?? "") }

    /// `value` with `places` decimals, `.` as the separator whatever the locale.
    static func decimal(_ value: Double, places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { result, _ in result * 10 }
        let scaled = Int64((value * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale))
        return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
