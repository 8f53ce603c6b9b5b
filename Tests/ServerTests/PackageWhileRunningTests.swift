import Foundation
import TestSupport
import Testing

/// An HLS package played while its job runs: its worker is held (SIGSTOP) once a few segments are written,
/// and then the playlists are served as they are now (`EVENT`, no `#EXT-X-ENDLIST`, `Cache-Control:
/// no-cache`), every segment they list is served complete, and real players — ffmpeg's HLS reader and
/// GStreamer's `hlsdemux` — decode the source's first frames from it before the job ends. Let go, the job
/// succeeds with playlists that end with `#EXT-X-ENDLIST` and that the package oracle reads clean. A DASH
/// package does the same with a `dynamic` MPD that turns `static` (`PackageWhileRunningTests+DASH`).
@Suite(.serialized) struct PackageWhileRunningTests {
    @Test func hlsPlaysBeforeThePackageEnds() throws {
        let scratch = try Scratch("package-live")
        let server = try ServerProcess()
        let source = try Self.source()
        let (id, worker) = try IsolationTests.heldWorker(
            server, ["-T", source], submitting: "/jobs/package?segment_duration=1")
        let base = server.url("/jobs/\(id)/outputs/")
        let early = try Curl.run(base + "master.m3u8")
        #expect(early.status == 409 && early.errorCode == "output_not_written", "\(early.text)")
        try Self.letWrite(server, job: id, worker: worker) { outputs in
            FileManager.default.fileExists(atPath: outputs + "/master.m3u8")
                && Self.segments(in: (try? String(contentsOfFile: outputs + "/120p/index.m3u8", encoding: .utf8)) ?? "")
                    .count >= 3
        }

        let playlist = try Curl.run(base + "120p/index.m3u8")
        #expect(playlist.status == 200)
        #expect(playlist.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(playlist.headers["cache-control"] == "no-cache" && playlist.headers["etag"] == nil)
        #expect(playlist.headers["content-length"] == String(playlist.body.count), "\(playlist.headers)")
        #expect(playlist.text.contains("#EXT-X-PLAYLIST-TYPE:EVENT\n") && !playlist.text.contains("#EXT-X-ENDLIST"))
        let listed = Self.segments(in: playlist.text)
        #expect(listed.count >= 3)
        var fetched: [String: String] = [:]
        for name in ["120p/init.mp4"] + listed.map({ "120p/" + $0 }) {
            let reply = try Curl.run(base + name)
            #expect(reply.status == 200 && !reply.body.isEmpty, "\(name): \(reply.status)")
            fetched[name] = try Self.sha256(reply.body, scratch)
        }

        // ffmpeg takes an EVENT playlist without EXT-X-ENDLIST as live: from its first segment, not near
        // its end, with `-live_start_index 0`.
        let frames = 50
        let played = try Command.run(
            "timeout",
            [
                "-s", "KILL", "120", "ffmpeg", "-v", "error", "-live_start_index", "0", "-i", base + "master.m3u8",
                "-map", "0:v:0", "-frames:v", String(frames), "-f", "framemd5", "-",
            ], allowFailure: true)
        #expect(played.status == 0, "\(played.stderr)")
        let sourceFrames = try Oracle.frameHashes(source, stream: "v:0")
        #expect(Self.hashes(played.text) == Array(sourceFrames.prefix(frames)))
        let decoded = try Self.gstreamerFrames(base + "master.m3u8", demuxer: "hlsdemux", count: 25, scratch)
        #expect(decoded == (try Self.rawFrames(source, count: 25)), "GStreamer's frames are not the source's")
        let state = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String
        #expect(state == "running", "the players read the package before the job ended")

        kill(worker, SIGCONT)
        let ended = try Curl.run(server.url("/jobs/\(id)?wait=300")).json
        #expect(ended["state"] as? String == "succeeded", "\(ended)")
        let final = try Curl.run(base + "120p/index.m3u8")
        #expect(final.text.hasPrefix(playlist.text) && final.text.hasSuffix("#EXT-X-ENDLIST\n"))
        let outputs = ended["outputs"] as? [[String: Any]] ?? []
        for (name, digest) in fetched {
            let output = outputs.first { $0["name"] as? String == name }
            #expect(output?["sha256"] as? String == digest, "\(name) was served before it was complete")
        }
        _ = try PackageServerTests().readManifests(base + "master.m3u8")
        #expect(try Oracle.frameHashes(base + "master.m3u8", stream: "v:0") == sourceFrames)
    }

    /// A minute of 160x120 25 fps H.264, a keyframe every second, and AAC: sixty 1 s segments.
    static func source() throws -> String {
        try Fixtures.make(
            "package_live.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=60", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=60", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-g", "25", "-sc_threshold", "0", "-c:a", "aac", "-b:a", "64k", "-shortest",
                "-f", "mp4",
            ])
    }

    /// Lets the held `worker` of job `id` run in slices of a fraction of a millisecond, held again after
    /// each one, until `written` says its output directory holds what the test needs; returns with the
    /// worker held and the job running. A stream copy is over in a moment, so it is never let run freely.
    static func letWrite(
        _ server: ServerProcess, job id: String, worker: Int32, _ written: (String) -> Bool
    ) throws {
        let outputs = server.dataDirectory + "/jobs/\(id)/outputs"
        // At most 200 000 slices; a `for … where` would go on testing `written` after it holds.
        var slices = 0
        while slices < 200_000, !written(outputs) {
            slices += 1
            kill(worker, SIGCONT)
            usleep(200)
            try #require(ChildProcesses.stop(worker), "the worker ended")
        }
        #expect(written(outputs), "the worker never wrote what was waited for")
        let state = try Curl.run(server.url("/jobs/\(id)")).json["state"] as? String
        try #require(state == "running", "the job ended before it was held: \(state ?? "")")
    }

    /// The segment URIs of a media playlist.
    static func segments(in playlist: String) -> [String] {
        playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    static func hashes(_ framemd5: String) -> [String] {
        framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    static func sha256(_ data: Data, _ scratch: Scratch) throws -> String {
        let path = scratch.file("body.\(UUID().uuidString)")
        try data.write(to: URL(fileURLWithPath: path))
        return String(try Command.run("sha256sum", [path]).text.prefix(64))
    }

    /// The first `count` video frames GStreamer's `demuxer` (`hlsdemux`, `dashdemux`) decodes from the
    /// manifest at `url`, as raw I420, one file per frame in `scratch`: read once frame `count + 1` exists
    /// (so the first `count` are whole), and the pipeline is then stopped, since a live manifest has no end.
    /// Nil when the pipeline ended before (its error is in the report).
    static func gstreamerFrames(_ url: String, demuxer: String, count: Int, _ scratch: Scratch) throws -> Data? {
        let folder = scratch.file("gst-frames-\(demuxer)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = [
            "-q", "souphttpsrc", "location=\(url)", "!", demuxer, "!", "decodebin", "!", "video/x-raw,format=I420",
            "!", "multifilesink", "location=\(folder)/%05d.yuv",
        ]
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let frame = { (index: Int) in folder + "/" + String(format: "%05d.yuv", index) }
        // Waits for the player's files, two minutes at most.
        for _ in 0..<6000 where process.isRunning && !FileManager.default.fileExists(atPath: frame(count)) {
            usleep(20_000)
        }
        // SIGKILL: gst-launch inherits the test process's ignored SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard FileManager.default.fileExists(atPath: frame(count)) else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("GStreamer ended before frame \(count + 1): \(text)")
            return nil
        }
        return try (0..<count).reduce(into: Data()) { $0 += try Data(contentsOf: URL(fileURLWithPath: frame($1))) }
    }

    /// The first `count` video frames of `path` as ffmpeg decodes them, raw I420.
    static func rawFrames(_ path: String, count: Int) throws -> Data {
        try Command.run(
            "ffmpeg",
            ["-v", "error", "-i", path, "-frames:v", String(count), "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        ).stdout
    }
}
