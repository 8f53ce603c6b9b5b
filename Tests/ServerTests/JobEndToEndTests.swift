import Foundation
import TestSupport
import Testing

/// Every job kind through the real server with curl: upload (raw and multipart), wait, download, and
/// the files judged by ffprobe/ffmpeg.
@Suite(.serialized) struct JobEndToEndTests {
    let server: ServerProcess
    let scratch: Scratch

    init() throws {
        server = try ServerProcess()
        scratch = try Scratch("e2e")
    }

    /// Waits for the job to end and returns its JSON.
    func finished(_ reply: Curl.Reply) throws -> [String: Any] {
        let id = try #require(reply.json["id"] as? String)
        let done = try Curl.run(server.url("/jobs/\(id)?wait=60"))
        #expect(done.status == 200)
        return done.json
    }

    func download(_ job: [String: Any], _ name: String? = nil) throws -> (Curl.Reply, String) {
        let id = try #require(job["id"] as? String)
        let path = name.map { "/jobs/\(id)/outputs/\($0)" } ?? "/jobs/\(id)/output"
        let reply = try Curl.run(server.url(path))
        let file = scratch.file("\(id)-\(name ?? "output")")
        try reply.body.write(to: URL(fileURLWithPath: file))
        return (reply, file)
    }

    @Test func remuxRawUpload() throws {
        let input = try Fixtures.h264AacMP4()
        let created = try Curl.run(server.url("/jobs/remux?format=mkv"), ["-T", input])
        #expect(created.status == 202)
        let id = try #require(created.json["id"] as? String)
        #expect(created.headers["location"] == "/jobs/\(id)")
        #expect(id.count == 22)
        let job = try finished(created)
        #expect(job["state"] as? String == "succeeded")
        #expect(job["progress"] as? Double == 1)
        #expect((job["options"] as? [String: Any])?["format"] as? String == "mkv")
        let inputs = try #require(job["inputs"] as? [[String: Any]])
        let digest = try Command.run("sha256sum", [input]).text.prefix(64)
        #expect(inputs.first?["sha256"] as? String == String(digest))
        let (reply, file) = try download(job)
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "video/x-matroska")
        #expect(try Oracle.format(file)["format_name"] as? String == "matroska,webm")
        #expect(try Oracle.decodedHashes(file, streams: "0:v") == Oracle.decodedHashes(input, streams: "0:v"))
        let outputs = try #require(job["outputs"] as? [[String: Any]])
        #expect(outputs.first?["sha256"] as? String == String(try Command.run("sha256sum", [file]).text.prefix(64)))
        #expect(reply.headers["etag"] == "\"\(outputs.first?["sha256"] as? String ?? "")\"")
    }

    @Test func remuxMultipartWithOptionsAsFields() throws {
        let input = try Fixtures.h264AacMP4()
        let created = try Curl.run(
            server.url("/jobs/remux?wait=60"),
            ["-F", "file=@\(input);filename=talk.mp4", "-F", "format=mov", "-F", "tracks=video"])
        #expect(created.status == 200)
        #expect(created.json["state"] as? String == "succeeded")
        #expect(created.json["source_name"] as? String == "talk.mp4")
        let (reply, file) = try download(created.json)
        #expect(reply.headers["content-disposition"] == "attachment; filename=\"talk.mov\"")
        #expect(try Oracle.streams(file).map { $0["codec_type"] as? String } == ["video"])
    }

    @Test func encodeRawPCMAndWAV() throws {
        let pcm = scratch.file("tone.pcm")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-f", "s16le",
                "-ac", "1", pcm,
            ])
        let raw = try Curl.run(
            server.url("/jobs/encode?sample_rate=48000&channels=1&format=adts&wait=60"), ["--data-binary", "@\(pcm)"])
        #expect(raw.json["state"] as? String == "succeeded", "\(raw.text)")
        let (adts, file) = try download(raw.json)
        #expect(adts.headers["content-type"] == "audio/aac")
        #expect(try Oracle.streams(file).first?["sample_rate"] as? String == "48000")

        let wav = try Curl.run(
            server.url("/jobs/encode?wait=60"), ["-F", "file=@\(try Fixtures.wav())", "-F", "bitrate=128k"])
        #expect(wav.json["state"] as? String == "succeeded", "\(wav.text)")
        let (m4a, audio) = try download(wav.json)
        #expect(m4a.headers["content-type"] == "audio/mp4")
        #expect(try Oracle.streams(audio).first?["codec_name"] as? String == "aac")
    }

    @Test func decodeM4AToWAV() throws {
        let m4a = scratch.file("in.m4a")
        try Command.run("ffmpeg", ["-v", "error", "-i", try Fixtures.wav(), "-c:a", "aac", m4a])
        let job = try Curl.run(server.url("/jobs/decode?wait=60"), ["-T", m4a]).json
        #expect(job["state"] as? String == "succeeded")
        let (reply, file) = try download(job)
        #expect(reply.headers["content-type"] == "audio/wav")
        #expect(try Oracle.streams(file).first?["codec_name"] as? String == "pcm_s16le")
    }

    @Test func muxMultipartAudioAndVideo() throws {
        let job = try Curl.run(
            server.url("/jobs/mux?wait=60"),
            ["-F", "audio=@\(try Fixtures.adts())", "-F", "video=@\(try Fixtures.h264AnnexB())", "-F", "fps=30"]
        ).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let (_, file) = try download(job)
        #expect(try Oracle.decodedHashes(file, streams: "0:v") == Oracle.decodedHashes(try Fixtures.h264AnnexB()))
        let raw = try Curl.run(server.url("/jobs/mux?format=mkv&wait=60"), ["-T", try Fixtures.h264AnnexB()]).json
        #expect(raw["state"] as? String == "succeeded")
        #expect((raw["inputs"] as? [[String: Any]])?.first?["name"] as? String == "video")
    }

    @Test func demuxListsEveryFile() throws {
        let job = try Curl.run(server.url("/jobs/demux?wait=60"), ["-T", try Fixtures.h264AacMP4()]).json
        #expect(job["state"] as? String == "succeeded")
        let names = (job["outputs"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["info.json", "audio.aac", "video.h264"])
        let (reply, file) = try download(job, "video.h264")
        #expect(reply.headers["content-type"] == "video/h264")
        #expect(try Oracle.decodedHashes(file) == Oracle.decodedHashes(try Fixtures.h264AacMP4(), streams: "0:v"))
        let (info, _) = try download(job)
        #expect(info.headers["content-type"] == "application/json")
    }

    @Test func probeAnswersAtOnce() throws {
        let reply = try Curl.run(server.url("/probe"), ["-T", try Fixtures.h264AacMP4()])
        #expect(reply.status == 200)
        #expect((reply.json["tracks"] as? [Any])?.count == 2)
        let bad = try Curl.run(server.url("/probe"), ["--data-binary", "just text"])
        #expect(bad.status == 415)
        #expect(bad.errorCode == "unsupported_format")
    }

    @Test func badMediaFailsTheJobWithTheEngineCode() throws {
        let cut = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4())).prefix(40_000)
        let file = try scratch.write("cut.mp4", [UInt8](cut))
        let job = try Curl.run(server.url("/jobs/remux?wait=60"), ["-T", file]).json
        #expect(job["state"] as? String == "failed")
        #expect((job["error"] as? [String: Any])?["code"] as? String == "truncated_input")
        let id = try #require(job["id"] as? String)
        let output = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(output.status == 409)
        #expect(output.errorCode == "not_ready")
        let log = try Curl.run(server.url("/jobs/\(id)/log"))
        #expect(log.text.contains("failed: truncated_input"))
    }
}
