import Foundation
import TestSupport
import Testing

/// The name of an upload, as curl and browsers send it, becomes the job's `source_name` and names its
/// downloads: `curl -T talk.mp4 …/jobs/remux/` then `curl -OJ …/output` saves `talk.mkv`.
@Suite(.serialized) struct UploadNameTests {
    /// Runs a shell command line in `directory` (curl's -T and -OJ work with names relative to it).
    @discardableResult
    static func shell(_ line: String, in directory: String) throws -> Command.Output {
        try Command.run("sh", ["-c", "cd '\(directory)' && \(line)"])
    }

    /// The README's first example, to the letter.
    @Test func curlUploadToASlashNamesTheDownload() throws {
        let scratch = try Scratch("upload-name")
        let server = try ServerProcess()
        try FileManager.default.copyItem(atPath: try Fixtures.h264AacMP4(), toPath: scratch.file("talk.mp4"))
        let created = try Self.shell(
            "curl -sS -T talk.mp4 '\(server.url("/jobs/remux/"))?format=mkv&wait=60'", in: scratch.path)
        let job = try #require(try JSONSerialization.jsonObject(with: created.stdout) as? [String: Any])
        #expect(job["source_name"] as? String == "talk.mp4")
        #expect(job["state"] as? String == "succeeded")
        let id = try #require(job["id"] as? String)
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: true)
        try Self.shell("curl -sS -OJ '\(server.url("/jobs/\(id)/output"))'", in: scratch.file("out"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == ["talk.mkv"])
        #expect(try Oracle.format(scratch.file("out/talk.mkv"))["format_name"] as? String == "matroska,webm")
        // curl escapes what it appends: a name with spaces and a semicolon arrives whole.
        try FileManager.default.copyItem(atPath: scratch.file("talk.mp4"), toPath: scratch.file("my talk; v2.mp4"))
        let spaced = try Self.shell(
            "curl -sS -T 'my talk; v2.mp4' '\(server.url("/jobs/remux/"))'", in: scratch.path)
        let spacedJob = try #require(try JSONSerialization.jsonObject(with: spaced.stdout) as? [String: Any])
        #expect(spacedJob["source_name"] as? String == "my talk; v2.mp4")
    }

    @Test func filenameOptionNamesARawUpload() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let named = try Curl.run(server.url("/jobs/remux?filename=clip.mov&format=mkv&wait=60"), ["-T", input])
        #expect(named.status == 200)
        #expect(named.json["source_name"] as? String == "clip.mov")
        let id = try #require(named.json["id"] as? String)
        #expect(
            try Curl.run(server.url("/jobs/\(id)/output")).headers["content-disposition"]
                == "attachment; filename=\"clip.mkv\"")
        let twice = try Curl.run(server.url("/jobs/remux/a.mp4?filename=b.mp4"), ["-T", input])
        #expect(twice.status == 400)
        #expect(twice.errorCode == "invalid_option")
        for bad in ["/jobs/remux/%01.mp4", "/jobs/remux?filename=", "/jobs/remux/..%2F"] {
            let refused = try Curl.run(server.url(bad), ["-T", input, "--path-as-is"])
            #expect(refused.status == 400 || refused.status == 404, "\(bad)")
        }
        #expect(try Curl.run(server.url("/jobs/sharpen/talk.mp4"), ["-T", input]).status == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/jobs").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory + "/uploads").isEmpty)
    }

    /// `filename="talk; final.mov"`: the quoted `;` is part of the name.
    @Test func multipartNamesKeepWhatIsQuoted() throws {
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let created = try Curl.run(
            server.url("/jobs/remux?wait=60"),
            ["-F", "file=@\(input);filename=\"talk; final.mov\"", "-F", "format=mkv"])
        #expect(created.json["source_name"] as? String == "talk; final.mov")
        let id = try #require(created.json["id"] as? String)
        #expect(
            try Curl.run(server.url("/jobs/\(id)/output")).headers["content-disposition"]
                == "attachment; filename=\"talk; final.mkv\"")
    }
}
