import Foundation
import Testing
import TestSupport

/// Packages served by a real `mediad serve` and read by clients no one here wrote: GStreamer's playbin
/// (hlsdemux/dashdemux) plays them to the end, ffmpeg's HLS and DASH demuxers decode the source's frames
/// from them over HTTP, the `m3u8` and `mpegdash` parsers read every manifest, Python's tarfile reads the
/// outputs' archive; names that try to leave the job are refused and outputs carry CORS headers.
@Suite(.serialized) struct PackageServerTests {
    static let manifestChecker = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("package_manifests.py").path

    /// Submits `input` as a package job with `query` and waits for it to succeed; returns the job's JSON.
    func package(_ server: ServerProcess, _ input: String, _ query: String) throws -> [String: Any] {
        let reply = try Curl.run(server.url("/jobs/package?wait=60&\(query)"), ["-T", input])
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["state"] as? String == "succeeded", "\(reply.text)")
        return reply.json
    }

    func outputNames(_ job: [String: Any]) -> [String] {
        (job["outputs"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// What `package_manifests.py` found reading the manifest at `url`.
    func readManifests(_ url: String) throws -> [String: Any] {
        let run = try Command.run("python3", [Self.manifestChecker, url], allowFailure: true)
        let report = (try? JSONSerialization.jsonObject(with: run.stdout)) as? [String: Any] ?? [:]
        #expect(run.status == 0, "\(run.stderr)")
        #expect(report["problems"] as? [String] == [], "\(report["problems"] ?? run.stderr)")
        return report
    }

    /// GStreamer's playbin plays `url` to the end into fake sinks with no error or warning.
    func playbinProblems(_ url: String) throws -> String? {
        let play = try Command.run(
            "timeout",
            [
                "-s", "KILL", "120", "gst-launch-1.0", "-q", "playbin", "uri=\(url)", "video-sink=fakesink",
                "audio-sink=fakesink",
            ],
            allowFailure: true)
        let text = play.text + play.stderr
        return play.status == 0 && !text.contains("ERROR") && !text.contains("WARNING")
            ? nil : text.suffix(2000).description
    }

    @Test(arguments: [("hls", "fmp4", "master.m3u8"), ("hls", "ts", "master.m3u8"), ("dash", "fmp4", "manifest.mpd")])
    func playersPlayThePackageOverHTTP(_ format: String, _ segments: String, _ manifest: String) throws {
        let server = try ServerProcess()
        let source = try Fixtures.h264AacMP4()
        let job = try package(server, source, "format=\(format)&segment_format=\(segments)&segment_duration=1")
        let id = try #require(job["id"] as? String)
        let names = outputNames(job)
        #expect(names.first == manifest, "the manifest is the primary output")
        let url = server.url("/jobs/\(id)/outputs/\(manifest)")

        let report = try readManifests(url)
        let stream = try Oracle.streams(source)[0]
        let level = try #require(stream["level"] as? Int)
        let codecs = report["codecs"] as? [String] ?? []
        #expect(codecs.contains { $0.hasPrefix("avc1.64") && $0.hasSuffix(String(format: "%02x", level)) }, "\(codecs)")
        #expect(codecs.contains("mp4a.40.2"))
        if format == "hls" {
            let attributes = report["attributes"] as? [String: Any] ?? [:]
            #expect(attributes["resolution"] as? [Int] == [320, 240])
            #expect(attributes["frame_rate"] as? Double == 30)
            #expect(attributes["version"] as? Int == (segments == "fmp4" ? 7 : 3))
            #expect(report["iframe_playlists"] as? Int == (segments == "fmp4" ? 1 : nil))
        }

        #expect(try playbinProblems(url) == nil)
        #expect(try Oracle.frameHashes(url, stream: "v:0") == Oracle.frameHashes(source, stream: "v:0"))
        let audio = try Command.run(
            "ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", source, "-map", "0:a:0", "-f", "framemd5", "-"])
        let sourceAudio = audio.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(try Oracle.frameHashes(url, stream: "a:0") == sourceAudio)
    }

    /// Headless Chromium on another origin (`localhost` against the server's `127.0.0.1`) supports each
    /// rendition's `CODECS` in Media Source Extensions and takes its initialization and media segments,
    /// fetched across origins, into a SourceBuffer without an error.
    @Test(.timeLimit(.minutes(8))) func chromiumAppendsTheSegmentsFromAnotherOrigin() throws {
        let server = try ServerProcess()
        let job = try package(server, try Fixtures.h264AacMP4(), "segment_duration=1")
        #expect(try mediaSourceResults(server, job) == 2)
    }

    /// Feeds every rendition of the fMP4 package `job` to `package_mse.py` (Chromium's Media Source
    /// Extensions, from another origin); expects no problem and returns how many renditions it appended.
    func mediaSourceResults(_ server: ServerProcess, _ job: [String: Any]) throws -> Int? {
        let id = try #require(job["id"] as? String)
        let renditions = (job["result"] as? [String: Any])?["renditions"] as? [[String: Any]] ?? []
        let feeds: [[String: Any]] = renditions.map { rendition in
            let folder = rendition["name"] as? String ?? ""
            let count = (rendition["segment_durations"] as? [Double])?.count ?? 0
            let names =
                [rendition["initialization"] as? String ?? ""]
                + (1...max(1, count)).map { "\(folder)/seg_0000\($0).m4s" }
            return [
                "codecs": rendition["codecs"] as? String ?? "",
                "mime": rendition["kind"] as? String == "video" ? "video/mp4" : "audio/mp4",
                "urls": names.map { server.url("/jobs/\(id)/outputs/\($0)") },
            ]
        }
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: feeds), as: UTF8.self)
        let page = "http://localhost:\(server.port)/healthz"
        let run = try BrowserScript.run("package_mse.py", [page, argument], killAfter: 150)
        let report = (try? JSONSerialization.jsonObject(with: run.stdout)) as? [String: Any]
        let found = try #require(report, "package_mse.py exited \(run.status): \(run.stderr.suffix(3000))")
        #expect(found["problems"] as? [String] == [], "\(found)")
        return (found["results"] as? [[String: Any]])?.count
    }

    @Test func servesTheTreeWithTypesAndCORS() throws {
        let server = try ServerProcess()
        let job = try package(server, try Fixtures.h264AacMP4(), "format=cmaf&segment_duration=1")
        let id = try #require(job["id"] as? String)
        let names = outputNames(job)
        #expect(names.contains("240p/init.mp4") && names.contains("audio/init.m4a") && names.contains("manifest.mpd"))
        let types = [
            "master.m3u8": "application/vnd.apple.mpegurl", "manifest.mpd": "application/dash+xml",
            "240p/init.mp4": "video/mp4", "240p/seg_00001.m4s": "video/iso.segment", "audio/init.m4a": "audio/mp4",
        ]
        for (name, type) in types {
            let reply = try Curl.run(
                server.url("/jobs/\(id)/outputs/\(name)"), ["-H", "Origin: https://player.example"])
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == type)
            #expect(reply.headers["access-control-allow-origin"] == "*")
            #expect(reply.headers["access-control-expose-headers"]?.contains("Content-Range") == true)
        }
        let range = try Curl.run(server.url("/jobs/\(id)/outputs/240p/seg_00001.m4s"), ["-H", "Range: bytes=0-7"])
        #expect(range.status == 206 && range.body.count == 8)
        let preflight = try Curl.run(
            server.url("/jobs/\(id)/outputs/240p/seg_00001.m4s"),
            [
                "-X", "OPTIONS", "-H", "Origin: https://player.example", "-H", "Access-Control-Request-Method: GET",
                "-H", "Access-Control-Request-Headers: range",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "*")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("GET") == true)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Range") == true)
        #expect(try Curl.run(server.url("/jobs/\(id)")).headers["access-control-allow-origin"] == nil)
    }

    @Test func corsOriginsLimitWhoMayRead() throws {
        let server = try ServerProcess(["--cors-origins", "https://player.example,http://localhost:3000"])
        let job = try package(server, try Fixtures.h264AacMP4(), "segment_duration=3")
        let url = server.url("/jobs/\(try #require(job["id"] as? String))/outputs/master.m3u8")
        let allowed = try Curl.run(url, ["-H", "Origin: http://localhost:3000"])
        #expect(allowed.headers["access-control-allow-origin"] == "http://localhost:3000")
        #expect(allowed.headers["vary"]?.contains("Origin") == true)
        #expect(
            try Curl.run(url, ["-H", "Origin: https://evil.example"]).headers["access-control-allow-origin"] == nil)
    }

    /// Browsers send preflights without credentials: with API tokens they are answered all the same, and
    /// a download without a token is 401 that a page on another origin can read.
    @Test func preflightsNeedNoTokenButDownloadsDo() throws {
        let scratch = try Scratch("cors-tokens")
        let tokens = try scratch.write("tokens", Array("player:player-token-0123456789\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens])
        let url = server.url("/jobs/AAAAAAAAAAAAAAAAAAAAAA/outputs/240p/init.mp4")
        let preflight = try Curl.run(
            url,
            [
                "-X", "OPTIONS", "-H", "Origin: https://player.example", "-H", "Access-Control-Request-Method: GET",
                "-H", "Access-Control-Request-Headers: authorization, range",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Authorization") == true)
        let refused = try Curl.run(url, ["-H", "Origin: https://player.example"])
        #expect(refused.status == 401)
        #expect(refused.headers["access-control-allow-origin"] == "*")
    }

    @Test func refusesNamesThatLeaveTheJob() throws {
        let server = try ServerProcess()
        let job = try package(server, try Fixtures.h264AacMP4(), "segment_duration=3")
        let id = try #require(job["id"] as? String)
        for path in [
            "240p/%2e%2e/%2e%2e/job.json", "%2e%2e/job.json", "240p/..%2Finit.mp4", "240p//init.mp4",
            "240p/%5Cinit.mp4", "%00",
        ] {
            let reply = try Curl.run(server.url("/jobs/\(id)/outputs/\(path)"), ["--path-as-is"])
            #expect(reply.status == 400, "\(path)")
            #expect(reply.errorCode == "invalid_output_name", "\(path)")
        }
        #expect(try Curl.run(server.url("/jobs/\(id)/outputs/240p/missing.m4s")).status == 404)
    }

    @Test func archivesEveryOutputAsTar() throws {
        let server = try ServerProcess()
        let job = try package(server, try Fixtures.h264AacMP4(), "format=cmaf&segment_duration=1")
        let id = try #require(job["id"] as? String)
        let scratch = try Scratch("tar")
        let reply = try Curl.run(server.url("/jobs/\(id)/outputs.tar"), ["-H", "Origin: https://a.example"])
        let archive = try scratch.write("outputs.tar", Array(reply.body))
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/x-tar")
        #expect(reply.headers["access-control-allow-origin"] == "*")
        let listing = try Command.run(
            "python3",
            [
                "-c",
                "import hashlib, json, sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n print(json.dumps({m.name: hashlib.sha256(t.extractfile(m).read()).hexdigest() for m in t.getmembers()}))",
                archive,
            ])
        let members = try JSONSerialization.jsonObject(with: listing.stdout) as? [String: String] ?? [:]
        let outputs = job["outputs"] as? [[String: Any]] ?? []
        let expected = Dictionary(
            uniqueKeysWithValues: outputs.map { ($0["name"] as! String, $0["sha256"] as! String) })
        #expect(!expected.isEmpty && members == expected)
        #expect(try Command.run("tar", ["-tf", archive]).text.split(separator: "\n").count == expected.count)

        let remux = try Curl.run(server.url("/jobs/remux?wait=60&format=mkv"), ["-T", try Fixtures.h264AacMP4()])
        let remuxID = try #require(remux.json["id"] as? String)
        let single = try Curl.run(server.url("/jobs/\(remuxID)/outputs.tar"))
        #expect(single.status == 200)
        #expect(
            try Command.run("tar", ["-tf", try scratch.write("remux.tar", Array(single.body))]).text == "output.mkv\n")
    }

    @Test func refusesBadOptionsBeforeReadingTheUpload() throws {
        let server = try ServerProcess()
        for query in [
            "segment_duration=0.5", "segment_duration=61", "segment_format=ts&format=dash", "renditions=8k",
        ] {
            let reply = try Curl.run(server.url("/jobs/package?\(query)"), ["-T", try Fixtures.h264AacMP4()])
            #expect(reply.status == 400, "\(query)")
            #expect(reply.errorCode == "invalid_option", "\(query)")
        }
    }

    /// What the file holds decides these: a probe of the upload refuses them before a job exists, with the
    /// job's own message, and the upload is removed.
    @Test func refusesTracksTheOptionsCannotTakeAtUpload() throws {
        let server = try ServerProcess()
        let vp9 = try Fixtures.make(
            "vp9.webm",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libvpx-vp9", "-deadline",
                "realtime", "-cpu-used", "8", "-f", "webm",
            ])
        let audioOnly = try Fixtures.make(
            "tone.m4a", ["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-f", "mp4"])
        let av1 = try Fixtures.make(
            "av1.mkv",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libsvtav1", "-preset", "12",
                "-f", "matroska",
            ])
        func h264Beside(_ audioCodec: String) throws -> String {
            try Fixtures.make(
                "h264-\(audioCodec).mkv",
                [
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-f", "lavfi", "-i",
                    "sine=duration=1:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", audioCodec,
                    "-f", "matroska",
                ])
        }
        for (input, query, quoted) in [
            (vp9, "segment_format=ts", "cannot carry vp9"), (av1, "segment_format=ts", "cannot carry av1"),
            (try h264Beside("libopus"), "segment_format=ts", "cannot carry opus"),
            (try h264Beside("flac"), "segment_format=ts", "cannot carry flac"),
            (audioOnly, "renditions=360p", "no video track"),
        ] {
            let reply = try Curl.run(server.url("/jobs/package?\(query)"), ["-T", input])
            #expect(reply.status == 400, "\(query)")
            #expect(reply.errorCode == "invalid_option", "\(query)")
            #expect(reply.errorMessage.contains(quoted), "\(reply.json)")
        }
        #expect((try Curl.run(server.url("/jobs")).json["jobs"] as? [Any])?.isEmpty == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
        let fits = try Curl.run(server.url("/jobs/package?segment_format=fmp4&wait=60"), ["-T", vp9])
        #expect(fits.json["state"] as? String == "succeeded", "\(fits.json)")
    }
}
