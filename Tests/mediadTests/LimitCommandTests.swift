import Foundation
import TestSupport
import Testing

/// The command line under a memory limit of its own (`prlimit --as`, as `ulimit -v` sets it): a ladder
/// whose estimate is over it is refused before anything is encoded, one that fits runs.
@Suite struct LimitCommandTests {
    func mediad(limit: Int64, _ arguments: String...) throws -> Command.Output {
        try Command.run("prlimit", ["--as=\(limit)", CommandLineTests.binary] + arguments, allowFailure: true)
    }

    @Test func aLadderOverTheProcessLimitIsRefusedBeforeEncoding() throws {
        let scratch = try Scratch("clilimit")
        let source = try Fixtures.make(
            "ladder_2160p_frame.mp4",
            [
                "-f", "lavfi", "-i", "color=c=gray:s=3840x2160:r=30:d=0.1", "-c:v", "libx264", "-preset",
                "ultrafast", "-f", "mp4",
            ])
        let refused = try mediad(
            limit: 2 << 30, "package", source, "-o", scratch.file("all"), "--renditions",
            "2160p,1440p,1080p,720p,480p,360p,240p")
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: invalid_option: renditions 2160p,"), "\(refused.stderr)")
        #expect(refused.stderr.contains("estimated") && refused.stderr.contains("--job-memory"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("all/master.m3u8")))
        let fits = try mediad(
            limit: 2 << 30, "package", source, "-o", scratch.file("two"), "--renditions", "720p,360p", "--preset",
            "ultrafast")
        #expect(fits.status == 0, "\(fits.stderr)")
    }
}
