import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Files that are valid but unusual in what they hold.
@Suite struct RemuxEdgeFileTests {
    /// The first top-level boxes of a fragmented MP4 — `ftyp` and `moov` — without any `moof`/`mdat`: an
    /// initialization segment, as a DASH or HLS packager keeps it apart from the media segments.
    static func initializationSegment(in scratch: Scratch) throws -> String {
        let fragmented = try Fixtures.make(
            "fragmented.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-movflags", "frag_keyframe+empty_moov",
                "-f", "mp4",
            ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fragmented)))
        var kept: [UInt8] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8 else { break }
            if type == "ftyp" || type == "moov" { kept += bytes[offset..<min(bytes.count, offset + size)] }
            offset += size
        }
        return try scratch.write("init.mp4", kept)
    }

    @Test func anInitializationSegmentIsProbedButNotRemuxed() throws {
        let scratch = try Scratch("init-segment")
        let input = try Self.initializationSegment(in: scratch)
        let info = try ProbeJob(input: input).run()
        #expect(info.tracks.count == 2)
        for format in [ContainerFormat.mp4, .mkv] {
            let output = scratch.file("out.\(format.fileExtension)")
            let error = #expect(throws: MediaError.self) {
                try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
            }
            #expect(error?.code == .emptyInput, "\(error?.message ?? "")")
            #expect(error?.message.contains("initialization segment") == true)
        }
        #expect(try scratch.listing() == ["init.mp4"])
    }
}
