import Foundation
import TestSupport
import Testing

/// Inputs by URL (`input_url`): fetched from a local http.server through the egress policy, with the
/// refusals it must make — at submission when the URL alone decides, at fetch time when DNS or a redirect
/// does — and the failures a fetch can end in, each with its stable code.
@Suite(.serialized) struct InputURLTests {
    /// A directory served by `Peers/file_server.py` (http.server), holding `talk.mp4`.
    final class Files: @unchecked Sendable {
        // Immutable after init.
        let scratch: Scratch
        let peer: PeerProcess
        let mp4: String

        init() throws {
            scratch = try Scratch("input-url")
            mp4 = scratch.file("talk.mp4")
            try FileManager.default.copyItem(atPath: try Fixtures.h264AacMP4(), toPath: mp4)
            peer = try PeerProcess.script("file_server.py", [scratch.path], logFile: scratch.file("requests.log"))
        }

        var port: Int { peer.port }
        func url(_ path: String) -> String { peer.url + path }
    }

    /// Submits a remux of `inputURL` with no body.
    func submit(_ server: ServerProcess, _ inputURL: String, _ extra: [String] = []) throws -> Curl.Reply {
        try Curl.run(
            server.url("/jobs/remux?format=mkv"), ["-X", "POST", "--url-query", "input_url=\(inputURL)"] + extra)
    }

    /// Polls the job until it ends (at most 60 s).
    func ended(_ server: ServerProcess, _ id: String) throws -> [String: Any] {
        try Curl.run(server.url("/jobs/\(id)?wait=60")).json
    }

    func source(_ job: [String: Any]) -> [String: Any] {
        (job["input_sources"] as? [[String: Any]])?.first ?? [:]
    }

    func errorCode(_ job: [String: Any]) -> String? { (job["error"] as? [String: Any])?["code"] as? String }

    @Test func fetchesTheInputWithItsSHA256AndRunsTheJob() throws {
        let files = try Files()
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try submit(server, files.url("/talk.mp4"))
        #expect(created.status == 202)
        let id = try #require(created.json["id"] as? String)
        let job = try ended(server, id)
        #expect(job["state"] as? String == "succeeded")
        #expect(job["source_name"] as? String == "talk.mp4")
        let expected = try Command.run("sha256sum", [files.mp4]).text.prefix(64)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: files.mp4)[.size] as? Int)
        let inputs = try #require(job["inputs"] as? [[String: Any]])
        #expect(inputs.count == 1)
        #expect(inputs.first?["name"] as? String == "input")
        #expect(inputs.first?["sha256"] as? String == String(expected))
        #expect(inputs.first?["size"] as? Int == size)
        #expect(source(job)["state"] as? String == "fetched")
        #expect(source(job)["status"] as? Int == 200)
        #expect(source(job)["url"] as? String == files.url("/talk.mp4"))
        let output = try Curl.run(server.url("/jobs/\(id)/output"))
        let scratch = try Scratch("input-url-output")
        let format = try Oracle.format(try scratch.write("out.mkv", Array(output.body)))
        #expect((format["format_name"] as? String)?.contains("matroska") == true)
        #expect(try Oracle.streams(scratch.file("out.mkv")).count == 2)
    }

    /// mux names both its parts by URL: each is fetched and hashed as an input of its own, and muxed.
    @Test func muxesPartsNamedByURL() throws {
        let files = try Files()
        for (name, fixture) in [("tone.aac", try Fixtures.adts()), ("clip.h264", try Fixtures.h264AnnexB())] {
            try FileManager.default.copyItem(atPath: fixture, toPath: files.scratch.file(name))
        }
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try Curl.run(
            server.url("/jobs/mux?format=mkv&fps=30"),
            [
                "-X", "POST", "--url-query", "audio_url=\(files.url("/tone.aac"))", "--url-query",
                "video_url=\(files.url("/clip.h264"))",
            ])
        #expect(created.status == 202, "\(created.text)")
        let id = try #require(created.json["id"] as? String)
        let job = try ended(server, id)
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let inputs = job["inputs"] as? [[String: Any]] ?? []
        for (part, name) in [("audio", "tone.aac"), ("video", "clip.h264")] {
            let expected = try Command.run("sha256sum", [files.scratch.file(name)]).text.prefix(64)
            #expect(inputs.first { $0["name"] as? String == part }?["sha256"] as? String == String(expected), "\(part)")
        }
        let sources = job["input_sources"] as? [[String: Any]] ?? []
        #expect(sources.count == 2)
        #expect(sources.allSatisfy { $0["state"] as? String == "fetched" }, "\(sources)")
        let output = try Curl.run(server.url("/jobs/\(id)/output"))
        let scratch = try Scratch("input-url-mux")
        let mkv = try scratch.write("out.mkv", Array(output.body))
        #expect(try Oracle.decodedHashes(mkv, streams: "0:v") == Oracle.decodedHashes(try Fixtures.h264AnnexB()))
        #expect(try Oracle.streams(mkv).compactMap { $0["codec_type"] as? String }.sorted() == ["audio", "video"])
    }

    /// encode's `video` and `audio` parts come by URL as mux's do (`video_url`, `audio_url`): camera frames
    /// and PCM, fetched and encoded into one file.
    @Test func encodesPartsNamedByURL() throws {
        let files = try Files()
        let pcm = try Fixtures.make(
            "input_url.pcm", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-f", "s16le"])
        for (name, fixture) in [("mic.pcm", pcm), ("camera.nv12", try CameraEncodeHTTPTests.frames("nv12"))] {
            try FileManager.default.copyItem(atPath: fixture, toPath: files.scratch.file(name))
        }
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try Curl.run(
            server.url(
                "/jobs/encode?pixel_format=nv12&\(CameraEncodeHTTPTests.geometry)&sample_rate=48000&channels=1"
                    + "&format=mp4"),
            [
                "-X", "POST", "--url-query", "video_url=\(files.url("/camera.nv12"))", "--url-query",
                "audio_url=\(files.url("/mic.pcm"))",
            ])
        #expect(created.status == 202, "\(created.text)")
        let job = try ended(server, try #require(created.json["id"] as? String))
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let sources = job["input_sources"] as? [[String: Any]] ?? []
        #expect(sources.compactMap { $0["name"] as? String }.sorted() == ["audio", "video"], "\(sources)")
        let tracks = (job["result"] as? [String: Any])?["tracks"] as? [[String: Any]]
        #expect(tracks?.map { $0["codec"] as? String } == ["h264", "aac"])
    }

    @Test func followsAnAllowedRedirect() throws {
        let files = try Files()
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let created = try submit(server, files.url("/redirect?to=/talk.mp4"))
        let job = try ended(server, try #require(created.json["id"] as? String))
        #expect(job["state"] as? String == "succeeded")
    }

    @Test func refusesAtSubmissionWhatTheURLAloneDecides() throws {
        let files = try Files()
        let off = try ServerProcess()
        let disabled = try submit(off, files.url("/talk.mp4"))
        #expect(disabled.status == 400)
        #expect(disabled.errorCode == "egress_disabled")

        let server = try ServerProcess(["--egress-allow", ".example.com"])
        for url in [
            "http://169.254.169.254/latest/meta-data/", files.url("/talk.mp4"), "ftp://media.example.com/a.mp4",
            "http://user@media.example.com/a.mp4", "http://[::1]:\(files.port)/talk.mp4",
        ] {
            let reply = try submit(server, url)
            #expect(reply.status == 400, "\(url)")
            #expect(reply.errorCode == "input_refused", "\(url)")
        }
        let listed = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let both = try Curl.run(
            listed.url("/jobs/remux?format=mkv"),
            ["--data-binary", "@\(files.mp4)", "--url-query", "input_url=\(files.url("/talk.mp4"))"])
        #expect(both.status == 400)
        #expect(both.errorCode == "invalid_request")
        let twice = try Curl.run(
            listed.url("/jobs/remux?input_url=\(files.url("/talk.mp4"))"),
            ["-F", "input_url=\(files.url("/talk.mp4"))", "-F", "format=mkv"])
        #expect(twice.status == 400)
        #expect(twice.errorCode == "invalid_option")
        #expect((try Curl.run(listed.url("/jobs")).json["jobs"] as? [Any])?.isEmpty == true)
    }

    @Test func refusesANameThatResolvesToLoopbackAndARedirectToARefusedAddress() throws {
        let files = try Files()
        // `localhost` is allowed by name, but it resolves to loopback, which no range on the list holds.
        let byName = try ServerProcess(["--egress-allow", "localhost"])
        let resolved = try ended(
            byName, try #require(try submit(byName, "http://localhost:\(files.port)/talk.mp4").json["id"] as? String))
        #expect(resolved["state"] as? String == "failed")
        #expect(errorCode(resolved) == "input_refused")
        #expect(source(resolved)["state"] as? String == "failed")

        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        for target in ["http://169.254.169.254/latest/meta-data/", "http://localhost:\(files.port)/talk.mp4"] {
            let created = try submit(server, files.url("/redirect?to=\(target)"))
            let job = try ended(server, try #require(created.json["id"] as? String))
            #expect(job["state"] as? String == "failed", "\(target)")
            #expect(errorCode(job) == "input_refused", "\(target)")
            #expect(source(job)["status"] as? Int == 302)
        }
        let loop = try ended(server, try #require(try submit(server, files.url("/loop")).json["id"] as? String))
        #expect(errorCode(loop) == "input_refused")
        #expect(((loop["error"] as? [String: Any])?["message"] as? String)?.contains("more than 5") == true)
        let requests = try String(contentsOfFile: files.scratch.file("requests.log"), encoding: .utf8)
        #expect(requests.components(separatedBy: "GET /loop").count - 1 == 6)
    }

    @Test func failsWithTheStatusTheSizeLimitOrAStall() throws {
        let files = try Files()
        let server = try ServerProcess(["--egress-allow", "127.0.0.1", "--egress-idle-timeout", "1"])
        let missing = try ended(server, try #require(try submit(server, files.url("/gone.mp4")).json["id"] as? String))
        #expect(errorCode(missing) == "input_http_error")
        #expect(source(missing)["status"] as? Int == 404)
        #expect(((missing["error"] as? [String: Any])?["message"] as? String)?.contains("404") == true)

        // A fetched file is screened like an upload: text named .mp4 is not remuxed.
        try files.scratch.write("notes.mp4", Array("#EXTM3U\nsegment.ts\n".utf8))
        let text = try ended(server, try #require(try submit(server, files.url("/notes.mp4")).json["id"] as? String))
        #expect(errorCode(text) == "unsupported_format")
        #expect(source(text)["state"] as? String == "failed")

        let stalled = try ended(server, try #require(try submit(server, files.url("/stall")).json["id"] as? String))
        #expect(errorCode(stalled) == "input_unreachable")
        #expect(
            ((stalled["error"] as? [String: Any])?["message"] as? String)?.contains("no data moved for 1.0s") == true)
        let closed = try ended(
            server,
            try #require(try submit(server, "http://127.0.0.1:\(try Self.closedPort())/a.mp4").json["id"] as? String))
        #expect(errorCode(closed) == "input_unreachable")

        let small = try ServerProcess(["--egress-allow", "127.0.0.1", "--max-upload", "1K"])
        let large = try ended(small, try #require(try submit(small, files.url("/talk.mp4")).json["id"] as? String))
        #expect(errorCode(large) == "input_too_large")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.dataDirectory + "/uploads") == [])
    }

    @Test func showsTheFetchAndCancellingStopsIt() throws {
        let files = try Files()
        let server = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let id = try #require(try submit(server, files.url("/stall")).json["id"] as? String)
        var job: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        repeat {
            job = try Curl.run(server.url("/jobs/\(id)")).json
            usleep(50_000)
        } while source(job)["state"] as? String != "fetching" && Date() < deadline
        #expect(job["state"] as? String == "running")
        #expect(source(job)["state"] as? String == "fetching")
        let started = Date()
        let cancelled = try Curl.run(server.url("/jobs/\(id)"), ["-X", "DELETE"])
        #expect(cancelled.json["state"] as? String == "cancelled")
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads") == [])
    }

    @Test func keepsTheQueryStringOutOfTheJobAndTheLogs() throws {
        let files = try Files()
        let scratch = try Scratch("input-url-log")
        let log = scratch.file("server.log")
        let server = try ServerProcess(["--egress-allow", "127.0.0.1", "--log-level", "debug"], logFile: log)
        let signature = "X-Amz-Signature=5ec7e7deadbeef"
        let created = try submit(server, files.url("/talk.mp4?\(signature)"))
        let id = try #require(created.json["id"] as? String)
        let job = try ended(server, id)
        #expect(job["state"] as? String == "succeeded")
        #expect(source(job)["url"] as? String == files.url("/talk.mp4"))
        let missing = try ended(
            server, try #require(try submit(server, files.url("/gone?\(signature)")).json["id"] as? String))
        #expect(errorCode(missing) == "input_http_error")
        for text in [
            created.text, String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self),
            String(decoding: try JSONSerialization.data(withJSONObject: missing), as: UTF8.self),
            try Curl.run(server.url("/jobs/\(id)/log")).text, try Curl.run(server.url("/jobs")).text,
            try String(contentsOfFile: log, encoding: .utf8),
        ] {
            #expect(!text.contains("5ec7e7deadbeef"))
        }
        // The peer did receive it: the secret reached the one place it is for.
        #expect(try String(contentsOfFile: files.scratch.file("requests.log"), encoding: .utf8).contains(signature))
    }

    @Test func fetchesOverTLSOnlyFromPeersItCanVerify() throws {
        let scratch = try Scratch("input-url-tls")
        let certificates = try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch)
        let peer = try TLSReceiver(certificates, in: scratch)
        defer { peer.stop() }
        let trusting = try ServerProcess(["--egress-allow", "127.0.0.1", "--webhook-ca-file", certificates.authority])
        // The peer answers any GET with a few bytes of text: verified and fetched (status 200), then screened out.
        let verified = try ended(
            trusting, try #require(try submit(trusting, "\(peer.url)/talk.mp4").json["id"] as? String))
        #expect(source(verified)["status"] as? Int == 200)
        #expect(errorCode(verified) == "unsupported_format")
        let stranger = try ServerProcess(["--egress-allow", "127.0.0.1"])
        let refused = try ended(
            stranger, try #require(try submit(stranger, "\(peer.url)/talk.mp4").json["id"] as? String))
        #expect(errorCode(refused) == "input_unreachable")
        #expect(source(refused)["status"] is NSNull)
        let message = (refused["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("not signed by a trusted authority"), "\(message)")
    }

    /// A loopback port nothing listens on.
    static func closedPort() throws -> Int {
        let (socket, port) = try LoopbackListener.listeningSocket()
        close(socket)
        return port
    }
}
