import Foundation
@testable import MediaJobs
import Synchronization
import Testing
import TestSupport

/// A DASH package by stream copy publishes its MPD while it runs (`LiveMPD`): every version the job leaves
/// on disk, read at each checkpoint, is a `dynamic` MPD whose timelines list only segments that exist, each
/// the start of every later version's and of the final `static` MPD's, with one `availabilityStartTime`.
@Suite struct LiveMPDTests {
    @Test(arguments: ["dash", "cmaf"])
    func timelinesOnlyGrowWhileThePackageIsWritten(_ format: String) throws {
        let scratch = try Scratch("live-mpd")
        let source = try LivePlaylistTests.source(seconds: 20, keyframes: "expr:gte(t,n_forced)")
        let snapshots = LivePlaylistTests.Snapshots(directory: scratch.path, names: ["manifest.mpd"])
        let options = try PackageJob.Options(parsing: ["format": format, "segment_duration": "1"])
        let context = JobContext(checkResources: { snapshots.take() })
        let primary = scratch.file(format == "dash" ? "manifest.mpd" : "master.m3u8")
        _ = try PackageJob(input: source, primaryOutput: primary, options: options).run(context)

        let final = try String(contentsOfFile: scratch.file("manifest.mpd"), encoding: .utf8)
        #expect(final.contains(#"type="static" mediaPresentationDuration="#), "\(final)")
        let finalTimelines = Self.timelines(final)
        #expect(finalTimelines.count == 2 && finalTimelines.allSatisfy { $0.count == 20 }, "\(final)")
        let versions = snapshots.versions.withLock { $0 }["manifest.mpd"] ?? []
        #expect(versions.count >= 5, "\(versions.count) versions while the job ran")
        var listed = 0
        for version in versions {
            #expect(version.contains(#"type="dynamic" minimumUpdatePeriod="PT1S" suggestedPresentationDelay="PT20S""#))
            #expect(Self.attribute("availabilityStartTime", version) == Self.attribute("availabilityStartTime", final))
            let timelines = Self.timelines(version)
            #expect(timelines.count == 2)
            for (timeline, whole) in zip(timelines, finalTimelines) {
                #expect(!timeline.isEmpty && timeline.count < whole.count)
                #expect(Array(whole.prefix(timeline.count)) == timeline, "a version is not the start of the final MPD")
            }
            let folders = ["120p", "audio"]
            for (folder, timeline) in zip(folders, timelines) {
                // Read after the version: the segments it lists were written before it.
                let last = scratch.file("\(folder)/seg_" + TrackSegmenter.number(timeline.count) + ".m4s")
                #expect(FileManager.default.fileExists(atPath: last))
            }
            let count = timelines.reduce(0) { $0 + $1.count }
            #expect(count > listed, "a version lists no more segments than the one before")
            listed = count
        }
    }

    /// Each `SegmentTimeline` of `mpd` as its segments' (start, duration), repeats unfolded.
    static func timelines(_ mpd: String) -> [[[Int]]] {
        mpd.components(separatedBy: "<SegmentTimeline>").dropFirst().map { part in
            var segments: [[Int]] = []
            for element in part.components(separatedBy: "</SegmentTimeline>")[0].components(separatedBy: "<S ")
                .dropFirst()
            {
                let start =
                    attribute("t", " " + element).flatMap { Int($0) } ?? segments.last.map { $0[0] + $0[1] } ?? 0
                let duration = attribute("d", " " + element).flatMap { Int($0) } ?? 0
                let repeats = attribute("r", " " + element).flatMap { Int($0) } ?? 0
                for index in 0...repeats { segments.append([start + index * duration, duration]) }
            }
            return segments
        }
    }

    /// The value of the first attribute `name` in `text`.
    static func attribute(_ name: String, _ text: String) -> String? {
        guard let found = text.range(of: " \(name)=\"") else { return nil }
        return String(text[found.upperBound...].prefix { $0 != "\"" })
    }
}
