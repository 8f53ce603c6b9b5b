import Foundation
import TestSupport
import Testing

/// `POST /jobs/repair` through the real server with curl: the broken recording and its reference as
/// multipart parts, the result's counts, the download judged by ffmpeg, and the refusals.
@Suite(.serialized) struct RepairHTTPTests {
    let server: ServerProcess
    let scratch: Scratch

    init() throws {
        server = try ServerProcess()
        scratch = try Scratch("repair-http")
    }

    static let source = [
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=48000",
        "-c:v", "libx264", "-c:a", "aac", "-f", "mp4",
    ]

    /// A recording cut in the middle of its media data (its index lost), and a reference of 2 s.
    private func recordings() throws -> (broken: String, reference: String, original: String) {
        let original = try Fixtures.make("repair-http.mp4", Self.source + ["-t", "3"])
        let reference = try Fixtures.make("repair-http-reference.mp4", Self.source + ["-t", "2"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let moov = try #require(Oracle.topLevelBoxes(original).firstIndex(of: "moov"))
        #expect(moov == 3, "ftyp, free, mdat, moov")
        return (try scratch.write("broken.mp4", Array(bytes.prefix(bytes.count * 2 / 3))), reference, original)
    }

    @Test func repairsAMultipartUpload() throws {
        let (broken, reference, original) = try recordings()
        let job = try Curl.run(
            server.url("/jobs/repair?wait=60"), ["-F", "file=@\(broken)", "-F", "reference=@\(reference)"]
        ).json
        #expect(job["state"] as? String == "succeeded", "\(job)")
        let result = try #require(job["result"] as? [String: Any])
        #expect(result["method"] as? String == "index")
        let tracks = try #require(result["tracks"] as? [[String: Any]])
        #expect(tracks.compactMap { $0["kind"] as? String } == ["video", "audio"])
        let frames = try #require(tracks.first?["samples"] as? Int)
        let id = try #require(job["id"] as? String)
        let download = try Curl.run(server.url("/jobs/\(id)/output"))
        #expect(download.headers["content-type"] == "video/mp4")
        let file = scratch.file("fixed.mp4")
        try download.body.write(to: URL(fileURLWithPath: file))
        #expect(try Oracle.packetCount(file, stream: "v:0") == frames)
        let originalFrames = try Oracle.packetCount(original, stream: "v:0")
        #expect(frames > originalFrames / 2 && frames < originalFrames)
        let decode = try Command.run("ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty)
    }

    /// Without a reference an indexless recording fails as a job, with the code that says what is missing;
    /// a reference alone is refused before a job exists.
    @Test func saysWhatIsMissing() throws {
        let (broken, reference, _) = try recordings()
        let job = try Curl.run(server.url("/jobs/repair?wait=60"), ["-T", broken]).json
        #expect(job["state"] as? String == "failed")
        #expect((job["error"] as? [String: Any])?["code"] as? String == "reference_required", "\(job)")
        let alone = try Curl.run(server.url("/jobs/repair"), ["-F", "reference=@\(reference)"])
        #expect(alone.status == 400)
        #expect(alone.errorCode == "invalid_option")
        let options = try Curl.run(server.url("/jobs/repair?format=ts"), ["-F", "file=@\(broken)"])
        #expect(options.status == 400 && options.errorCode == "invalid_option")
    }
}
