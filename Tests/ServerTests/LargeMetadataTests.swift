import Foundation
import TestSupport
import Testing

/// A file's own metadata is reported capped: a megabytes-long tag is cut with a marker in job records,
/// lists and probes, while the job's output files keep it whole.
@Suite(.serialized) struct LargeMetadataTests {
    /// An 8 MiB title, over the cap of a worker's message, used to take the server seconds of CPU to
    /// read back and made every record, list and probe answer carry all of it.
    @Test func hugeTitleIsTruncatedInRecordsListsAndProbes() throws {
        let scratch = try Scratch("large-metadata")
        let titleBytes = 8 << 20
        let metadata = try scratch.write(
            "metadata.txt", Array(";FFMETADATA1\ntitle=\(String(repeating: "T", count: titleBytes))\n".utf8))
        let tagged = scratch.file("tagged.mp4")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-i", try Fixtures.h264AacMP4(), "-f", "ffmetadata", "-i", metadata, "-map", "0",
                "-map_metadata", "1", "-c", "copy", tagged,
            ])
        let server = try ServerProcess()
        let marker = "…[truncated, \(titleBytes) bytes]"

        let job = try Curl.run(server.url("/jobs/demux?wait=60"), ["-T", tagged])
        #expect(job.json["state"] as? String == "succeeded", "\(job.text.prefix(500))")
        #expect(job.body.count < 64 << 10, "the job's JSON is \(job.body.count) bytes")
        let info = (job.json["result"] as? [String: Any])?["info"] as? [String: Any]
        let title = (info?["tags"] as? [String: String])?["title"]
        #expect(title?.hasSuffix(marker) == true, "\(title?.suffix(80) ?? "no title")")
        print("demux of an 8 MiB title: \(job.seconds) s, job JSON \(job.body.count) bytes")

        let id = try #require(job.json["id"] as? String)
        let record = try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/jobs/\(id)/job.json"))
        #expect(record.count < 64 << 10, "the record on disk is \(record.count) bytes")
        let list = try Curl.run(server.url("/jobs"))
        #expect(list.status == 200)
        #expect(list.body.count < 64 << 10, "the list is \(list.body.count) bytes")

        let output = try Curl.run(server.url("/jobs/\(id)/outputs/info.json"))
        #expect(output.body.count > titleBytes, "info.json, an output file, keeps the whole title")

        let probe = try Curl.run(server.url("/probe"), ["-T", tagged])
        #expect(probe.status == 200, "\(probe.text.prefix(500))")
        #expect(probe.body.count < 64 << 10, "the probe answer is \(probe.body.count) bytes")
        let probed = (probe.json["tags"] as? [String: String])?["title"]
        #expect(probed?.hasSuffix(marker) == true)
        print("probe of an 8 MiB title: \(probe.seconds) s, answer \(probe.body.count) bytes")
    }

    /// Hundreds of tags are cut to the cap, with one entry saying how many were left out.
    @Test func manyTagsAreCapped() throws {
        let scratch = try Scratch("many-tags")
        let lines = (0..<300).map { "custom_tag_\($0)=value \($0)" }.joined(separator: "\n")
        let metadata = try scratch.write("metadata.txt", Array(";FFMETADATA1\n\(lines)\n".utf8))
        let tagged = scratch.file("tagged.mkv")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-i", try Fixtures.h264AacMP4(), "-f", "ffmetadata", "-i", metadata, "-map", "0",
                "-map_metadata", "1", "-c", "copy", tagged,
            ])
        let server = try ServerProcess()
        let probe = try Curl.run(server.url("/probe"), ["-T", tagged])
        #expect(probe.status == 200, "\(probe.text.prefix(500))")
        let tags = try #require(probe.json["tags"] as? [String: String])
        #expect(tags.count == 65, "64 tags and the marker: \(tags.count)")
        #expect(tags["…"]?.hasPrefix("[omitted,") == true, "\(tags["…"] ?? "no marker")")
    }
}
