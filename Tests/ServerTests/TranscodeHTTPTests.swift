import Foundation
import TestSupport
import Testing

/// `POST /jobs/transcode` through the real server (a worker process per job) with curl.
@Suite(.serialized) struct TranscodeHTTPTests {
    /// 2 s of 320x240 25 fps test pattern and tone, the input of the HTTP runs.
    static func source() throws -> String {
        try Fixtures.make(
            "transcode_http.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=2", "-c:v", "libx264", "-preset", "veryfast", "-c:a",
                "aac", "-shortest", "-f", "mp4",
            ])
    }

    @Test func transcodesToWebMAndServesIt() throws {
        let server = try ServerProcess()
        let scratch = try Scratch("transcode-http")
        let created = try Curl.run(
            server.url("/jobs/transcode/talk.mp4?format=webm&height=120&preset=ultrafast&gop=25&wait=120"),
            ["-T", try Self.source()])
        #expect(created.status == 200, "\(created.text)")
        #expect(created.json["state"] as? String == "succeeded", "\(created.text)")
        let result = try #require(created.json["result"] as? [String: Any])
        let tracks = try #require(result["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["codec"] as? String } == ["vp9", "opus"])
        #expect(tracks.first?["frames"] as? Int == 50 && tracks.first?["height"] as? Int == 120)
        #expect(created.json["progress"] as? Double == 1)
        let id = try #require(created.json["id"] as? String)
        let download = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(download.headers["content-type"] == "video/webm")
        #expect(download.headers["content-disposition"] == "attachment; filename=\"talk.webm\"")
        let file = scratch.file("talk.webm")
        try download.body.write(to: URL(fileURLWithPath: file))
        #expect(try Oracle.streams(file).map { $0["codec_name"] as? String } == ["vp9", "opus"])
        #expect(try Parsers.mkvmerge(file, tracks: 2).problems == [])
    }

    /// Impossible options are refused at upload, before a job exists, with the reason.
    @Test func refusesImpossibleOptions() throws {
        let server = try ServerProcess()
        let refusals = [
            ("crf=20&video_bitrate=2M", "alternatives"), ("profile=baseline&bframes=3", "no B-frames"),
            ("video_codec=h264&profile=main10", "no main10 profile"),
            ("format=ts&video_codec=vp9", "ts cannot carry vp9"),
            ("format=webm&video_codec=hevc", "webm cannot carry hevc"), ("width=8", "16 to 16384"),
            ("fps=0", "1 to 240"), ("video_bitrate=1", "bits per second"),
        ]
        for (query, reason) in refusals {
            let refused = try Curl.run(server.url("/jobs/transcode?\(query)"), ["-T", try Self.source()])
            #expect(refused.status == 400, "\(query)")
            #expect(refused.errorCode == "invalid_option", "\(query)")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(reason), "\(query): \(message)")
        }
        let jobs = (try? FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs")) ?? []
        #expect(jobs.isEmpty)
    }

    @Test func failsAVideoTranscodeOfAudioWithMissingStream() throws {
        let server = try ServerProcess()
        let job = try Curl.run(server.url("/jobs/transcode?wait=60"), ["-T", try Fixtures.wav()])
        #expect(job.json["state"] as? String == "failed")
        #expect((job.json["error"] as? [String: Any])?["code"] as? String == "missing_stream")
    }
}
