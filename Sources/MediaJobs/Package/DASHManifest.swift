import CFFmpeg
import Foundation

/// Writes a package's DASH MPD (ISO/IEC 23009-1): one period, an adaptation set holding every video
/// rendition (the ladder's representations, between which players switch) and one per audio track (with
/// its language), each representation addressed by a `SegmentTemplate` with a `SegmentTimeline` of the
/// segments' real start times and durations. URLs are relative to the MPD.
///
/// While the job runs the MPD is `dynamic` (`LiveMPD`): its timeline lists the segments written so far and
/// `minimumUpdatePeriod` asks players to fetch it again; the final MPD is `static`, with the whole
/// presentation's `mediaPresentationDuration`. Both carry the same `availabilityStartTime`, as an MPD
/// update must (§5.4): the wall-clock time of media time 0.
struct DASHManifest {
    let renditions: [PackageRendition]
    /// `availabilityStartTime`: when the package began, the wall-clock time of media time 0.
    let availabilityStart: Date
    /// `publishTime`: when this version is written.
    let published: Date
    /// What a `dynamic` MPD adds; nil for the final, `static` one.
    let dynamic: Dynamic?

    /// The attributes of a `dynamic` MPD, in whole seconds.
    struct Dynamic {
        /// `minimumUpdatePeriod`: how soon a player fetches the MPD again.
        let updatePeriod: Int
        /// `suggestedPresentationDelay`: how far behind the live edge a player starts; nil for none.
        let presentationDelay: Int?
    }

    func document() -> String {
        let longest = renditions.flatMap(\.durations).max() ?? 1
        var root =
            #"<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" "#
        if let dynamic {
            root += #"type="dynamic" minimumUpdatePeriod="PT\#(dynamic.updatePeriod)S" "#
            if let delay = dynamic.presentationDelay { root += #"suggestedPresentationDelay="PT\#(delay)S" "# }
        } else {
            let duration = renditions.map(\.span).max() ?? 0
            root += #"type="static" mediaPresentationDuration="\#(Self.duration(duration))" "#
        }
        root += #"availabilityStartTime="\#(Self.dateTime(availabilityStart))" "#
        root += #"publishTime="\#(Self.dateTime(published))" minBufferTime="\#(Self.duration(longest))">"#
        var lines = [#"<?xml version="1.0" encoding="utf-8"?>"#, root, #"  <Period id="0" start="PT0S">"#]
        let videos = renditions.filter { $0.track.isVideo }
        let sets = (videos.isEmpty ? [] : [videos]) + renditions.filter { !$0.track.isVideo }.map { [$0] }
        for (index, set) in sets.enumerated() {
            lines += adaptationSet(set, id: index)
        }
        lines += ["  </Period>", "</MPD>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// An adaptation set of `renditions`, which are all video or one audio track.
    private func adaptationSet(_ renditions: [PackageRendition], id: Int) -> [String] {
        let first = renditions[0].track
        var set = #"    <AdaptationSet id="\#(id)" contentType="\#(first.isVideo ? "video" : "audio")" "#
        set += #"mimeType="\#(first.isVideo ? "video/mp4" : "audio/mp4")" segmentAlignment="true" startWithSAP="1""#
        if let language = first.language { set += #" lang="\#(language)""# }
        return [set + ">"] + renditions.flatMap(representation) + ["    </AdaptationSet>"]
    }

    private func representation(_ rendition: PackageRendition) -> [String] {
        let track = rendition.track
        var representation = #"      <Representation id="\#(track.folder)" codecs="\#(track.codecString)" "#
        representation += #"bandwidth="\#(rendition.bandwidth)""#
        switch track.media {
        case .video(let width, let height, let frameRate):
            representation += #" width="\#(width)" height="\#(height)""#
            if frameRate.num > 0, frameRate.den > 0 {
                representation += #" frameRate="\#(frameRate.num)/\#(frameRate.den)""#
            }
        case .audio(_, let sampleRate):
            representation += #" audioSamplingRate="\#(sampleRate)""#
        }
        var lines = [representation + ">"]
        if case .audio(let channels, _) = track.media, channels > 0 {
            lines.append(
                #"        <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="\#(channels)"/>"#
            )
        }
        let media = "\(track.folder)/seg_$Number%05d$.m4s"
        lines.append(
            #"        <SegmentTemplate timescale="\#(rendition.timeBase.den)" initialization="\#(rendition.initialization ?? "")" media="\#(media)" startNumber="1">"#
        )
        lines.append("          <SegmentTimeline>")
        lines += timeline(rendition).map { "            " + $0 }
        lines += ["          </SegmentTimeline>", "        </SegmentTemplate>", "      </Representation>"]
        return lines
    }

    /// `S` elements: the first with its start `t`, runs of equal durations folded into `r` repeats.
    private func timeline(_ rendition: PackageRendition) -> [String] {
        let segments = rendition.segments
        let ticks = rendition.ticks
        var elements: [String] = []
        var index = 0
        while index < ticks.count {
            var repeats = 0
            while index + repeats + 1 < ticks.count, ticks[index + repeats + 1] == ticks[index] { repeats += 1 }
            let start = index == 0 ? #" t="\#(segments[0].start)""# : ""
            elements.append(#"<S\#(start) d="\#(ticks[index])"\#(repeats > 0 ? #" r="\#(repeats)""# : "")/>"#)
            index += repeats + 1
        }
        return elements
    }

    /// An `xs:dateTime` in UTC with milliseconds: `2026-11-28T10:00:00.123Z`.
    private static func dateTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// An ISO 8601 duration in seconds with millisecond precision: `PT12.345S`.
    private static func duration(_ seconds: Double) -> String {
        "PT" + HLSPlaylists.decimal(seconds, places: 3) + "S"
    }
}
