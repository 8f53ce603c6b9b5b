import Foundation
import TestSupport
import Testing

/// `mediad submit` against a real server, with real media, as a CI script runs it.
@Suite(.serialized) struct SubmitCommandTests {
    /// Runs `mediad submit …` with `environment` added (e.g. MEDIAD_TOKEN).
    func submit(_ arguments: [String], environment: [String: String] = [:]) throws -> Command.Output {
        try Command.run(
            "env", environment.map { "\($0.key)=\($0.value)" } + [ServerProcess.binary, "submit"] + arguments,
            allowFailure: true)
    }

    @Test func remuxesAndDownloadsTheOutput() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let result = try submit(
            ["remux", input, "--server", server.baseURL, "--option", "format=mkv", "-o", scratch.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        // The primary output is saved under the input's name, as the server names its download.
        let path = scratch.file("out/h264_aac.mkv")
        #expect(result.text == path + "\n")
        #expect(try Oracle.format(path)["format_name"] as? String == "matroska,webm")
        // Stream copy: the decoded video frames are the input's.
        #expect(try Oracle.decodedHashes(path, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == ["h264_aac.mkv"])
        // The file's name goes with it (`PUT /jobs/remux/<name>`), as with `curl -T file …/jobs/remux/`.
        let jobs = try #require(Curl.run(server.url("/jobs")).json["jobs"] as? [[String: Any]])
        #expect(jobs.first?["source_name"] as? String == URL(fileURLWithPath: input).lastPathComponent)
    }

    /// A package's outputs are a tree: they are saved in the same folders, and the master playlist there
    /// plays the source's frames.
    @Test func downloadsAPackageAsItsTree() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let result = try submit([
            "package", input, "--server", server.baseURL, "--option", "segment_duration=1", "-o", scratch.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try scratch.listing() == ["240p", "audio", "master.m3u8"])
        #expect(result.text.split(separator: "\n").contains { $0.hasSuffix("/240p/seg_00003.m4s") })
        #expect(
            try Oracle.frameHashes(scratch.file("master.m3u8"), stream: "v:0")
                == Oracle.frameHashes(input, stream: "v:0"))
    }

    @Test func downloadsEveryOutputOfADemux() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        let result = try submit([
            "demux", try Fixtures.h264AacMP4(), "--server", server.baseURL + "/", "-o", scratch.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try scratch.listing() == ["audio.aac", "info.json", "video.h264"])
        #expect(try Oracle.streams(scratch.file("audio.aac")).first?["codec_name"] as? String == "aac")
        #expect(try Oracle.streams(scratch.file("video.h264")).first?["codec_name"] as? String == "h264")
        let jobs = try #require(Curl.run(server.url("/jobs")).json["jobs"] as? [[String: Any]])
        let listed = (jobs.first?["outputs"] as? [[String: Any]] ?? []).compactMap { $0["sha256"] as? String }
        let downloaded = try ["info.json", "audio.aac", "video.h264"].map {
            try Command.run("sha256sum", [scratch.file($0)]).text.prefix(64)
        }
        #expect(Set(listed) == Set(downloaded.map(String.init)))
    }

    /// A download larger than the socket buffers reaches a slow client whole, also when the connection
    /// closes after it (`Connection: close`, as `mediad submit` sends).
    @Test func largeOutputsArriveWholeOnClosingConnections() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        let noise = scratch.file("noise.pcm")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "anoisesrc=duration=600:sample_rate=44100", "-ac", "2", "-f",
                "s16le", noise,
            ])
        let result = try submit(["encode", noise, "--server", server.baseURL, "-o", scratch.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        let output = scratch.file("out/noise.m4a")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size > 6_000_000)
        #expect(try Oracle.streams(output).first?["codec_name"] as? String == "aac")
        let id = try #require((Curl.run(server.url("/jobs")).json["jobs"] as? [[String: Any]])?.first?["id"] as? String)
        let slow = try Curl.run(
            server.url("/jobs/\(id)/output"), ["-H", "Connection: close", "--limit-rate", "2M"])
        #expect(slow.status == 200)
        #expect(slow.body.count == size)
        #expect(slow.body == (try Data(contentsOf: URL(fileURLWithPath: output))))
    }

    @Test func aFailedJobPrintsItsErrorAndWritesNothing() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        let cut = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4())).prefix(40_000)
        let file = try scratch.write("cut.mp4", [UInt8](cut))
        let result = try submit(["remux", file, "--server", server.baseURL, "-o", scratch.file("out")])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: truncated_input: "), "\(result.stderr)")
        #expect(result.text.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")).isEmpty)
    }

    @Test func refusedRequestsPrintTheServersError() throws {
        let scratch = try Scratch("submit")
        let tokens = try scratch.write("tokens", Array("ci:ci-token-0123456789abcdef\n".utf8))
        let server = try ServerProcess(["--auth-tokens", tokens, "--max-upload", "100K"])
        let small = try Fixtures.adts()
        let arguments = ["decode", small, "--server", server.baseURL, "-o", scratch.file("out")]

        let anonymous = try submit(arguments)
        #expect(anonymous.status == 1)
        #expect(anonymous.stderr.hasPrefix("error: unauthorized: "), "\(anonymous.stderr)")
        let wrong = try submit(arguments, environment: ["MEDIAD_TOKEN": "ci-token-0123456789abcdeX"])
        #expect(wrong.stderr.hasPrefix("error: unauthorized: "))
        #expect(!wrong.stderr.contains("ci-token"))

        let token = ["MEDIAD_TOKEN": "ci-token-0123456789abcdef"]
        let large = try submit(["remux", try Fixtures.h264AacMP4(), "--server", server.baseURL], environment: token)
        #expect(large.status == 1)
        #expect(large.stderr.hasPrefix("error: payload_too_large: "), "\(large.stderr)")
        let text = try scratch.write("notes.aac", Array("just some text, not audio\n".utf8))
        let unsupported = try submit(["decode", text, "--server", server.baseURL], environment: token)
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr.hasPrefix("error: unsupported_format: "), "\(unsupported.stderr)")
        let badOption = try submit(arguments + ["--option", "format=mp3"], environment: token)
        #expect(badOption.stderr.hasPrefix("error: invalid_option: "))

        let decoded = try submit(arguments, environment: token)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try Oracle.streams(scratch.file("out/audio.wav")).first?["codec_name"] as? String == "pcm_s16le")

        let nobody = try ServerProcess()
        nobody.stop(SIGKILL)
        let down = try submit(["decode", small, "--server", nobody.baseURL])
        #expect(down.stderr.hasPrefix("error: connection_failed: "))
        #expect(try submit(["sharpen", small]).stderr.hasPrefix("error: invalid_option: no job kind"))
    }

    @Test func verifiesHTTPSServers() throws {
        // A TLS peer that is not mediad: the upload reaches it only when its certificate verifies.
        let scratch = try Scratch("submit-tls")
        let certificates = try TLSReceiver.certificates(for: ["IP:127.0.0.1"], in: scratch)
        let impostor = try TLSReceiver(certificates, in: scratch)
        defer { impostor.stop() }
        let arguments = ["decode", try Fixtures.adts(), "--server", impostor.url, "-o", scratch.file("out")]
        let untrusted = try submit(arguments)
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.hasPrefix("error: connection_failed: "), "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("not signed by a trusted authority"), "\(untrusted.stderr)")
        #expect(impostor.received.isEmpty)
        let trusted = try submit(arguments, environment: ["MEDIAD_CA_FILE": certificates.authority])
        #expect(trusted.stderr.hasPrefix("error: invalid_response: "), "\(trusted.stderr)")
        let name = URL(fileURLWithPath: try Fixtures.adts()).lastPathComponent
        #expect(impostor.received.first?.target == "/jobs/decode/\(name)")
        let badFile = try submit(arguments + ["--ca-file", scratch.file("missing.pem")])
        #expect(badFile.stderr.hasPrefix("error: invalid_option: --ca-file: "), "\(badFile.stderr)")
    }

    /// A machine without a system CA bundle (no `/etc/ssl`, as on a minimal image without ca-certificates)
    /// still serves, and still submits over plain http. The bundle is hidden in a private mount namespace.
    @Test(.enabled(if: TmpfsMount.isAvailable)) func runsWithoutSystemCertificateAuthorities() throws {
        let scratch = try Scratch("submit-no-ca")
        let empty = scratch.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        func withoutBundle(_ command: String) throws -> Command.Output {
            try Command.run(
                "unshare", ["-m", "sh", "-c", "mount --bind \(empty) /etc/ssl && exec \(command)"], allowFailure: true)
        }
        let serve = try withoutBundle(
            "timeout -s INT 5 \(ServerProcess.binary) serve --port 0 --data-dir \(scratch.file("data"))")
        #expect(serve.text.contains("listening on http://127.0.0.1:"), "\(serve.text) \(serve.stderr)")
        let server = try ServerProcess()
        let submitted = try withoutBundle(
            "\(ServerProcess.binary) submit decode \(try Fixtures.adts()) --server \(server.baseURL) -o \(scratch.file("out"))"
        )
        #expect(submitted.status == 0, "\(submitted.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/audio.wav")))
    }

    @Test func anIdempotencyKeyMakesARetryReuseTheJob() throws {
        let scratch = try Scratch("submit")
        let server = try ServerProcess()
        for directory in ["first", "second"] {
            let result = try submit(
                [
                    "encode", try Fixtures.wav(), "--server", server.baseURL, "--option", "bitrate=128k",
                    "--idempotency-key", "ci-run-7", "-o", scratch.file(directory),
                ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let jobs = try #require(Curl.run(server.url("/jobs")).json["jobs"] as? [Any])
        #expect(jobs.count == 1)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: scratch.file("first/tone.m4a")))
                == Data(contentsOf: URL(fileURLWithPath: scratch.file("second/tone.m4a"))))
    }
}
