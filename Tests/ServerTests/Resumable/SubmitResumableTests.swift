import Foundation
import TestSupport
import Testing

/// `mediad submit` over `--resumable-over`: the file goes up with tus and survives a connection cut in
/// the middle of it.
@Suite(.serialized) struct SubmitResumableTests {
    @Test func aCutUploadIsResumedFromTheServersOffset() throws {
        let scratch = try Scratch("submit-resume")
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
        // The PATCH's head is a few hundred bytes: the cut falls inside the body, past its first block.
        let proxy = try CuttingProxy(to: server.port, cutAfter: size / 2)
        let result = try Command.run(
            ServerProcess.binary,
            [
                "submit", "remux", input, "--server", proxy.baseURL, "--option", "format=mkv", "-o",
                scratch.file("out"),
                "--resumable-over", "1K",
            ], allowFailure: true)
        #expect(result.status == 0, "\(result.stderr)")
        let resumedAt = result.stderr.split(separator: "\n").compactMap { line in
            line.hasPrefix("resuming the upload at byte ") ? Int(line.split(separator: " ").last ?? "") : nil
        }
        #expect(resumedAt.count == 1, "\(result.stderr)")
        #expect((resumedAt.first ?? 0) > 0 && (resumedAt.first ?? size) < size, "taken up from the middle")
        let output = scratch.file("out/h264_aac.mkv")
        #expect(result.text == output + "\n")
        #expect(try Oracle.format(output)["format_name"] as? String == "matroska,webm")
        let jobs = try #require(Curl.run(server.url("/jobs")).json["jobs"] as? [[String: Any]])
        #expect(jobs.count == 1)
        let hashes = (jobs.first?["inputs"] as? [[String: Any]] ?? []).compactMap { $0["sha256"] as? String }
        #expect(hashes == [try ResumableUploadTests.sha256(input)])
        #expect(jobs.first?["source_name"] as? String == "h264_aac.mp4")
    }

    @Test func smallFilesStillGoInOneRequest() throws {
        let scratch = try Scratch("submit-small")
        let server = try ServerProcess()
        let input = try Fixtures.h264AacMP4()
        let result = try Command.run(
            ServerProcess.binary,
            ["submit", "remux", input, "--server", server.baseURL, "--option", "format=mkv", "-o", scratch.path],
            allowFailure: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory + "/resumable/"), "no tus upload was made")
        let bad = try Command.run(
            ServerProcess.binary,
            ["submit", "remux", input, "--server", server.baseURL, "--option", "format=avi", "--resumable-over", "1K"],
            allowFailure: true)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("error: invalid_option:"), "\(bad.stderr)")
    }

    /// A raw mux input's part is told by its bytes, which tus metadata cannot carry: it goes in one request.
    @Test func aMuxInputGoesInOneRequestWhateverItsSize() throws {
        let scratch = try Scratch("submit-mux")
        let server = try ServerProcess()
        let result = try Command.run(
            ServerProcess.binary,
            [
                "submit", "mux", try Fixtures.h264AnnexB(), "--server", server.baseURL, "-o", scratch.path,
                "--resumable-over", "1K",
            ], allowFailure: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory + "/resumable/"))
        #expect(try Oracle.streams(scratch.file("video.mp4")).first?["codec_name"] as? String == "h264")
    }
}
