import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// VP9 in MP4 remuxed to MP4: its `vpcC` needs the bit depth and chroma subsampling, which libav learns
/// only by decoding a frame. Without the VP9 decoder among stream copy's, the muxer wrote an empty `vpcC`
/// and an output no reader opens, with no warning.
@Suite struct RemuxVP9Tests {
    @Test(arguments: [ContainerFormat.mp4, .mkv])
    func vp9FromMP4KeepsEveryFrame(_ format: ContainerFormat) throws {
        let input = try Fixtures.make(
            "vp9.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libvpx-vp9", "-deadline",
                "realtime", "-cpu-used", "8", "-f", "mp4",
            ])
        let scratch = try Scratch("vp9")
        let output = scratch.file("out.\(format.fileExtension)")
        let result = try RemuxJob(input: input, output: output, options: try .init(format: format)).run(JobContext())
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let problems = try Lossless.problems(input: input, output: output, primingMayShow: false)
        #expect(problems.isEmpty, "\(problems)")
        #expect(try Parsers.gstreamerProblems(output, streams: 1).isEmpty)
    }
}
