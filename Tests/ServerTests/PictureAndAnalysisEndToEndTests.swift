import Foundation
import TestSupport
import Testing

/// thumbnails, waveform, decode to frames and probe's loudness through the real server with curl: the
/// options the catalog routes, the outputs served with their types, and bad options refused with 400
/// before a job is made.
@Suite(.serialized) struct PictureAndAnalysisEndToEndTests {
    let server: ServerProcess
    let scratch: Scratch

    init() throws {
        server = try ServerProcess()
        scratch = try Scratch("e2epictures")
    }

    func download(_ job: [String: Any], _ name: String) throws -> (Curl.Reply, String) {
        let id = try #require(job["id"] as? String)
        let reply = try Curl.run(server.url("/jobs/\(id)/outputs/\(name)"))
        let file = scratch.file("\(id)-\(name)")
        try reply.body.write(to: URL(fileURLWithPath: file))
        return (reply, file)
    }

    func names(_ job: [String: Any]) -> [String] {
        (job["outputs"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
    }

    @Test func thumbnailsWithASprite() throws {
        let job = try Curl.run(
            server.url("/jobs/thumbnails/talk.mp4?times=0.5,2&width=160&sprite=true&wait=60"),
            ["-T", try Fixtures.h264AacMP4()]
        ).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(names(job) == ["thumb_0001.jpg", "sprite.jpg", "sprite.vtt", "thumb_0002.jpg"])
        let (picture, file) = try download(job, "thumb_0002.jpg")
        #expect(picture.headers["content-type"] == "image/jpeg")
        let stream = try #require(try Oracle.streams(file).first)
        #expect(stream["codec_name"] as? String == "mjpeg")
        #expect(stream["width"] as? Int == 160 && stream["height"] as? Int == 120)
        let (cues, _) = try download(job, "sprite.vtt")
        #expect(cues.headers["content-type"] == "text/vtt")
        #expect(cues.text.contains("sprite.jpg#xywh=160,0,160,120"))
        let result = try #require(job["result"] as? [String: Any])
        #expect((result["thumbnails"] as? [[String: Any]])?.count == 2)
    }

    @Test func waveformAsMultipart() throws {
        let job = try Curl.run(
            server.url("/jobs/waveform?wait=60"),
            ["-F", "file=@\(try Fixtures.wav())", "-F", "pixels_per_second=20", "-F", "bits=8"]
        ).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(names(job) == ["waveform.json", "waveform.png"])
        let (peaks, _) = try download(job, "waveform.json")
        #expect(peaks.headers["content-type"] == "application/json")
        #expect(peaks.json["samples_per_pixel"] as? Int == 2205)
        #expect(peaks.json["length"] as? Int == 40)
        let (picture, file) = try download(job, "waveform.png")
        #expect(picture.headers["content-type"] == "image/png")
        #expect(try Oracle.streams(file).first?["width"] as? Int == 800)
    }

    @Test func decodeRawH264ToY4M() throws {
        let input = try Fixtures.h264AnnexB()
        let job = try Curl.run(server.url("/jobs/decode?wait=60"), ["-T", input]).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        #expect(names(job) == ["output.y4m"])
        let (_, file) = try download(job, "output.y4m")
        let expected = try Command.run(
            "ffmpeg", ["-v", "error", "-i", input, "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-"]
        ).stdout
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == expected)
        let result = try #require(job["result"] as? [String: Any])
        #expect(result["frames"] as? Int == 90)
        #expect(result["pixel_format"] as? String == "yuv420p")
    }

    @Test func probeMeasuresLoudnessWhenAsked() throws {
        let input = try Fixtures.wav()
        let plain = try Curl.run(server.url("/probe"), ["-T", input])
        #expect((plain.json["tracks"] as? [[String: Any]])?.first?["loudness"] == nil)
        let measured = try Curl.run(server.url("/probe?loudness=true"), ["-T", input])
        #expect(measured.status == 200)
        let loudness = try #require((measured.json["tracks"] as? [[String: Any]])?.first?["loudness"] as? [String: Any])
        for key in ["integrated", "range", "true_peak", "sample_peak"] { #expect(loudness[key] is Double, "\(key)") }
        let form = try Curl.run(server.url("/probe"), ["-F", "file=@\(input)", "-F", "loudness=1"])
        #expect((form.json["tracks"] as? [[String: Any]])?.first?["loudness"] != nil)
    }

    @Test(arguments: [
        "/jobs/thumbnails?times=1&every=2", "/jobs/thumbnails?width=9", "/jobs/thumbnails?format=gif",
        "/jobs/waveform?bits=12", "/jobs/waveform?waveform_color=blue", "/jobs/decode?format=rgb",
        "/probe?loudness=maybe", "/probe?verbose=1",
    ])
    func badOptionsAreRefusedBeforeAnyWork(_ path: String) throws {
        let reply = try Curl.run(server.url(path), ["-T", try Fixtures.h264AacMP4()])
        #expect(reply.status == 400, "\(path)")
        #expect(reply.errorCode == "invalid_option", "\(path): \(reply.text)")
        #expect(!reply.text.contains("\"id\""))
    }
}
