import Foundation
import TestSupport
import Testing

/// A DASH package played while its job runs: once its worker is held (SIGSTOP) with a few segments
/// written, `manifest.mpd` is a `dynamic` MPD (`availabilityStartTime`, `publishTime`,
/// `minimumUpdatePeriod`, `suggestedPresentationDelay`, no duration) whose timelines list only segments
/// already complete, served as it is now, and GStreamer's `dashdemux` and ffmpeg's DASH reader decode the
/// source's first frames from it.
/// Let go, the job ends with a `static` MPD that keeps the `availabilityStartTime`, that the package oracle
/// reads clean, and whose segments are those served while it ran.
extension PackageWhileRunningTests {
    @Test func dashPlaysBeforeThePackageEnds() throws {
        let scratch = try Scratch("package-live-dash")
        let server = try ServerProcess()
        let source = try Self.source()
        let (id, worker) = try IsolationTests.heldWorker(
            server, ["-T", source], submitting: "/jobs/package?format=dash&segment_duration=1")
        let base = server.url("/jobs/\(id)/outputs/")
        let early = try Curl.run(base + "manifest.mpd")
        #expect(early.status == 409 && early.errorCode == "output_not_written", "\(early.text)")
        try Self.letWrite(server, job: id, worker: worker) { outputs in
            let mpd = (try? String(contentsOfFile: outputs + "/manifest.mpd", encoding: .utf8)) ?? ""
            return Self.timelineLengths(mpd).first ?? 0 >= 3
        }

        let manifest = try Curl.run(base + "manifest.mpd")
        #expect(manifest.status == 200)
        #expect(manifest.headers["content-type"] == "application/dash+xml")
        #expect(manifest.headers["cache-control"] == "no-cache" && manifest.headers["etag"] == nil)
        let mpd = manifest.text
        #expect(mpd.contains(#"type="dynamic" minimumUpdatePeriod="PT1S" suggestedPresentationDelay="PT60S""#))
        #expect(mpd.contains("publishTime=") && !mpd.contains("mediaPresentationDuration"), "\(mpd)")
        let start = try #require(Self.attribute("availabilityStartTime", in: mpd))
        // dashdemux starts suggestedPresentationDelay (the source's 60 s) behind the wall-clock live edge:
        // at the first segment, as the worker was held less than a minute after the package began.
        let decoded = try Self.gstreamerFrames(base + "manifest.mpd", demuxer: "dashdemux", count: 25, scratch)
        #expect(decoded == (try Self.rawFrames(source, count: 25)), "GStreamer's frames are not the source's")
        let lengths = Self.timelineLengths(mpd)
        #expect(lengths.count == 2 && lengths.allSatisfy { $0 >= 3 }, "\(lengths)")
        var fetched: [String: String] = [:]
        for (folder, count) in zip(["120p", "audio"], lengths) {
            let initialization = folder == "audio" ? "init.m4a" : "init.mp4"
            for name in [initialization] + (1...count).map({ "seg_" + String(format: "%05d", $0) + ".m4s" }) {
                let reply = try Curl.run(base + folder + "/" + name)
                #expect(reply.status == 200 && !reply.body.isEmpty, "\(folder)/\(name): \(reply.status)")
                fetched[folder + "/" + name] = try Self.sha256(reply.body, scratch)
            }
        }

        // ffmpeg's dashdec starts a dynamic MPD with a SegmentTimeline a minute before its last segment:
        // here, its first.
        let frames = 50
        let played = try Command.run(
            "timeout",
            [
                "-s", "KILL", "120", "ffmpeg", "-v", "error", "-i", base + "manifest.mpd", "-map", "0:v:0",
                "-frames:v", String(frames), "-f", "framemd5", "-",
            ], allowFailure: true)
        #expect(played.status == 0, "\(played.stderr)")
        let sourceFrames = try Oracle.frameHashes(source, stream: "v:0")
        #expect(Self.hashes(played.text) == Array(sourceFrames.prefix(frames)))
        let state = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String
        #expect(state == "running", "the players read the package before the job ended")

        kill(worker, SIGCONT)
        let ended = try Curl.run(server.url("/jobs/\(id)?wait=300")).json
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        let final = try Curl.run(base + "manifest.mpd").text
        #expect(final.contains(#"type="static" mediaPresentationDuration="#), "\(final)")
        #expect(Self.attribute("availabilityStartTime", in: final) == start)
        #expect(Self.timelineLengths(final) == [60, 60], "\(final)")
        let outputs = ended["outputs"] as? [[String: Any]] ?? []
        for (name, digest) in fetched {
            let output = outputs.first { $0["name"] as? String == name }
            #expect(output?["sha256"] as? String == digest, "\(name) was served before it was complete")
        }
        _ = try PackageServerTests().readManifests(base + "manifest.mpd")
        #expect(try Oracle.frameHashes(base + "manifest.mpd", stream: "v:0") == sourceFrames)
    }

    /// The number of segments each `SegmentTimeline` of `mpd` lists: an `S` and its `r` repeats each.
    static func timelineLengths(_ mpd: String) -> [Int] {
        mpd.components(separatedBy: "<SegmentTimeline>").dropFirst().map { part in
            let timeline = part.components(separatedBy: "</SegmentTimeline>")[0]
            return timeline.components(separatedBy: "<S ").dropFirst().reduce(0) { count, element in
                count + 1 + (attribute("r", in: String(element)).flatMap { Int($0) } ?? 0)
            }
        }
    }

    /// The value of the first attribute `name` in `text`.
    static func attribute(_ name: String, in text: String) -> String? {
        guard let found = text.range(of: " \(name)=\"") else { return nil }
        return String(text[found.upperBound...].prefix { $0 != "\"" })
    }
}
