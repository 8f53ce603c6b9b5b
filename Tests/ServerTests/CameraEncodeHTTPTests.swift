import Foundation
import TestSupport
import Testing

/// `POST /jobs/encode` with camera frames through the real server (a worker process per job) with curl:
/// frames as the body, frames and PCM as multipart parts, and refusals before a job exists.
@Suite(.serialized) struct CameraEncodeHTTPTests {
    /// 2 s of 160x120 30 fps test pattern as headerless frames.
    static func frames(_ pixelFormat: String) throws -> String {
        try Fixtures.make(
            "camera_http.\(pixelFormat)",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=2", "-pix_fmt", pixelFormat, "-f",
                "rawvideo",
            ])
    }

    static let geometry = "width=160&height=120&fps=30&preset=veryfast"

    /// The body is the frames when `pixel_format` names them: Annex-B H.264 named after the upload.
    @Test func encodesFramesSentAsTheBody() throws {
        let server = try ServerProcess()
        let scratch = try Scratch("camera-http")
        let created = try Curl.run(
            server.url(
                "/jobs/encode/camera.nv12?pixel_format=nv12&\(Self.geometry)&format=h264&profile=baseline&gop=15&wait=120"
            ),
            ["-T", try Self.frames("nv12")])
        #expect(created.status == 200, "\(created.text)")
        #expect(created.json["state"] as? String == "succeeded", "\(created.text)")
        let result = try #require(created.json["result"] as? [String: Any])
        let track = try #require((result["tracks"] as? [[String: Any]])?.first)
        #expect(track["codec"] as? String == "h264" && track["frames"] as? Int == 60)
        #expect(track["profile"] as? String == "Constrained Baseline" && track["width"] as? Int == 160)
        let id = try #require(created.json["id"] as? String)
        let download = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(download.headers["content-type"] == "video/h264")
        #expect(download.headers["content-disposition"] == "attachment; filename=\"camera.h264\"")
        let file = scratch.file("camera.h264")
        try download.body.write(to: URL(fileURLWithPath: file))
        let keys = try Command.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", file]
        ).text.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("1") }.map(\.offset)
        #expect(keys == [0, 15, 30, 45])
        #expect(try Parsers.gstreamerProblems(file, streams: 1) == [])
    }

    /// Multipart `video` and `audio`: one MP4 with H.264 and AAC, as long as each other.
    @Test func muxesFramesAndPCMFromParts() throws {
        let server = try ServerProcess()
        let scratch = try Scratch("camera-http")
        let pcm = try Fixtures.make(
            "camera_http.pcm", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-f", "s16le"])
        let created = try Curl.run(
            server.url("/jobs/encode?wait=120"),
            [
                "-F", "video=@\(try Self.frames("yuv420p"))", "-F", "audio=@\(pcm)", "-F", "pixel_format=yuv420p",
                "-F", "width=160", "-F", "height=120", "-F", "fps=30", "-F", "preset=veryfast", "-F",
                "sample_rate=48000", "-F", "channels=1", "-F", "sample_format=s16le",
            ])
        #expect(created.json["state"] as? String == "succeeded", "\(created.text)")
        let result = try #require(created.json["result"] as? [String: Any])
        #expect((result["tracks"] as? [[String: Any]])?.map { $0["codec"] as? String } == ["h264", "aac"])
        let id = try #require(created.json["id"] as? String)
        let file = scratch.file("capture.mp4")
        try Curl.run(server.url("/jobs/\(id)/output")).body.write(to: URL(fileURLWithPath: file))
        let streams = try Oracle.streams(file)
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        let durations = streams.compactMap { ($0["duration"] as? String).flatMap(Double.init) }
        #expect(durations.count == 2 && durations.allSatisfy { abs($0 - 2) < 1.0 / 30 }, "\(durations)")
        #expect(try Parsers.gstreamerProblems(file, streams: 2) == [])
    }

    /// Frames go up through tus: an upload naming the kind becomes the job's lone input, and uploads
    /// without a kind are the `video` and `audio` parts of a job that names them.
    @Test func encodesFramesUploadedThroughTus() throws {
        let server = try ServerProcess()
        let frames = try Self.frames("nv12")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: frames)[.size] as? Int)
        let options = [
            "kind": "encode", "pixel_format": "nv12", "width": "160", "height": "120", "fps": "30", "format": "h264",
        ]
        let metadata = options.sorted { $0.key < $1.key }.map { "\($0.key) \(Tus.base64($0.value))" }
        let created = try Tus.create(
            server, length: size, metadata: metadata.joined(separator: ","),
            ["-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(frames)"])
        #expect(created.status == 201, "\(created.text)")
        let job = try Curl.run(server.url(try #require(created.headers["mediad-job"]) + "?wait=120"))
        #expect(job.json["state"] as? String == "succeeded", "\(job.text)")
        let result = try #require(job.json["result"] as? [String: Any])
        #expect(result["muxer"] as? String == "h264")

        let pcm = try Fixtures.make(
            "camera_http.pcm", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-f", "s16le"])
        var ids: [String] = []
        for file in [frames, pcm] {
            let length = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            let upload = try Tus.create(
                server, length: length,
                ["-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@\(file)"])
            ids.append(String(try #require(upload.headers["location"]).split(separator: "/").last ?? ""))
        }
        let muxed = try Curl.run(
            server.url(
                "/jobs/encode?video_upload=\(ids[0])&audio_upload=\(ids[1])&pixel_format=nv12&\(Self.geometry)"
                    + "&sample_rate=48000&channels=1&sample_format=s16le&format=mkv&wait=120"), ["-X", "POST"])
        #expect(muxed.json["state"] as? String == "succeeded", "\(muxed.text)")
        let tracks = (muxed.json["result"] as? [String: Any])?["tracks"] as? [[String: Any]]
        #expect(tracks?.map { $0["codec"] as? String } == ["h264", "aac"])
    }

    /// Options that cannot describe or encode frames, and parts that do not fit them, are refused at
    /// upload, before a job exists.
    @Test func refusesImpossibleOptions() throws {
        let server = try ServerProcess()
        let refusals = [
            ("pixel_format=nv12&width=160&height=120", "give fps"), ("pixel_format=nv12", "give width, height, fps"),
            ("pixel_format=nv12&\(Self.geometry)&crf=20&video_bitrate=1M", "alternatives"),
            ("pixel_format=nv12&\(Self.geometry)&profile=baseline&bframes=2", "no B-frames"),
            ("pixel_format=nv12&\(Self.geometry)&profile=main10", "no main10 profile"),
            ("pixel_format=nv12&width=8&height=120&fps=30", "16 to 16384"),
            ("pixel_format=nv12&width=160&height=120&fps=300", "1 to 240"), ("crf=20", "give pixel_format"),
        ]
        for (query, reason) in refusals {
            let refused = try Curl.run(server.url("/jobs/encode?\(query)"), ["-T", try Self.frames("nv12")])
            #expect(refused.status == 400, "\(query)")
            #expect(refused.errorCode == "invalid_option", "\(query)")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(reason), "\(query): \(message)")
        }
        let parts = [
            (["-F", "video=@\(try Self.frames("nv12"))"], "give pixel_format"),
            (
                ["-F", "file=@\(try Self.frames("nv12"))", "-F", "audio=@\(try Self.frames("nv12"))"],
                "as parts 'video'"
            ),
        ]
        for (arguments, reason) in parts {
            let refused = try Curl.run(server.url("/jobs/encode"), arguments)
            #expect(refused.status == 400 && refused.errorCode == "invalid_option", "\(refused.text)")
            let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(reason), "\(message)")
        }
        let jobs = (try? FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs")) ?? []
        #expect(jobs.isEmpty)
    }
}
