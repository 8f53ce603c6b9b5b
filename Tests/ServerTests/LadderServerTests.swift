import Foundation
import Testing
import TestSupport

/// An ABR ladder served by a real `mediad serve`: GStreamer's playbin plays its HLS master playlist and its
/// DASH MPD to the end, the `m3u8` and `mpegdash` parsers list every rendition with the size, codec string
/// and bit rates that ffprobe finds in its segments, Chromium's Media Source Extensions take every rendition,
/// and its worker ran under a package's time limits.
@Suite(.serialized) struct LadderServerTests {
    let packages = PackageServerTests()

    @Test func playersPlayEveryRenditionOfTheLadder() throws {
        let server = try ServerProcess()
        let source = try Fixtures.ladderSourceMP4()
        let job = try packages.package(
            server, source,
            "format=cmaf&renditions=480p,360p,240p,1080p&preset=ultrafast&segment_duration=2")
        let id = try #require(job["id"] as? String)
        let result = try #require(job["result"] as? [String: Any])
        let warnings = result["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("rendition 1080p") && $0.contains("skipped") }, "\(warnings)")
        // The worker ran it under a package's limits: 60 s plus the size read as 128 kbit/s, times 30.
        let size = try #require(FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        let log = try Curl.run(server.url("/jobs/\(id)/log")).text
        #expect(log.contains("package started in worker"), "\(log)")
        #expect(log.contains("(timeout \(Int((60 + Double(size) / 16_000 * 30).rounded(.down))) s"), "\(log)")
        let master = server.url("/jobs/\(id)/outputs/master.m3u8")
        let mpd = server.url("/jobs/\(id)/outputs/manifest.mpd")

        let hls = try packages.readManifests(master)
        let variants = hls["variants"] as? [[String: Any]] ?? []
        #expect(variants.count == 3)
        for variant in variants {
            let uri = try #require(variant["uri"] as? String)
            let stream = try Oracle.streams(uri)[0]
            let width = try #require(stream["width"] as? Int)
            let height = try #require(stream["height"] as? Int)
            #expect(variant["resolution"] as? [Int] == [width, height], "\(uri)")
            #expect(variant["frame_rate"] as? Double == 30, "\(uri)")
            let codecs = variant["codecs"] as? String ?? ""
            let level = try #require(stream["level"] as? Int)
            #expect(codecs.hasPrefix("avc1.") && codecs.contains(String(format: "%02x,", level)), "\(codecs)")
            #expect(codecs.hasSuffix(",mp4a.40.2"))
            #expect(uri.hasSuffix("\(height)p/index.m3u8"))
        }
        let heights = variants.compactMap { ($0["resolution"] as? [Int])?.last }
        #expect(heights == [480, 360, 240])
        let peaks = variants.compactMap { $0["bandwidth"] as? Int }
        #expect(peaks == peaks.sorted(by: >), "\(peaks)")

        let dash = try packages.readManifests(mpd)
        let representations = dash["representations"] as? [[String: Any]] ?? []
        let video = representations.filter { $0["width"] as? Int != nil }
        #expect(video.map { $0["height"] as? Int } == [480, 360, 240])
        #expect(Set(video.compactMap { $0["adaptation_set"] as? Int }).count == 1, "one set to switch within")
        #expect(representations.count == 4)

        #expect(try packages.playbinProblems(master) == nil)
        #expect(try packages.playbinProblems(mpd) == nil)
    }

    /// Headless Chromium supports every rendition's `CODECS` (Main and High avc1 strings, mp4a.40.2) in Media
    /// Source Extensions and appends each one's initialization and media segments without an error.
    @Test(.timeLimit(.minutes(8))) func chromiumAppendsEveryRendition() throws {
        let server = try ServerProcess()
        let job = try packages.package(
            server, try Fixtures.ladderSourceMP4(), "renditions=480p,360p,240p&preset=ultrafast&segment_duration=2")
        #expect(try packages.mediaSourceResults(server, job) == 4)
    }

    @Test func refusesUnknownRenditionsBeforeReadingTheUpload() throws {
        let server = try ServerProcess()
        for query in ["renditions=720p,4k", "renditions=720p,720p", "preset=fast"] {
            let reply = try Curl.run(server.url("/jobs/package?\(query)"), ["-T", try Fixtures.h264AacMP4()])
            #expect(reply.status == 400, "\(query)")
            #expect(reply.errorCode == "invalid_option", "\(query)")
        }
    }
}
