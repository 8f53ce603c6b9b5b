import Foundation
import TestSupport
import Testing

/// Requests over a limit are refused at submission with `400 invalid_option` and a message naming the
/// limit: picture sizes an encoder cannot take (from the options, or from the probe of the upload when
/// the size follows the source), a thumbnail schedule over 1000 pictures, a ladder whose estimated
/// memory is over `--job-memory`. Each used to become a job that failed with another code, or (the
/// schedule) one that silently stopped at 1000.
@Suite(.serialized) struct LimitRefusalTests {
    let server: ServerProcess

    init() throws {
        server = try ServerProcess()
    }

    func submit(_ path: String, _ file: String) throws -> Curl.Reply {
        try Curl.run(server.url(path), ["-T", file])
    }

    @Test(arguments: [
        ("transcode", "video_codec=h264&width=16384&height=16384", "libav codes in one picture"),
        ("transcode", "video_codec=hevc&format=mkv&width=16&height=8720", "hevc (libx265)"),
        ("transcode", "video_codec=av1&format=mkv&width=1280&height=8706", "av1 (SVT-AV1)"),
        ("transcode", "video_codec=av1&format=mkv&width=32", "av1 (SVT-AV1)"),
        ("transcode", "format=webm&width=16384&height=16384", "libav codes in one picture"),
        ("waveform", "width=16384&height=16384", "libav codes in one picture"),
        ("thumbnails", "format=webp&width=16384", "webp (libwebp)"),
        ("encode", "pixel_format=yuv420p&width=16384&height=16384&fps=30", "libav codes in one picture"),
    ])
    func sizesAnEncoderCannotTakeAreRefused(_ kind: String, _ query: String, _ named: String) throws {
        let input = kind == "waveform" ? try Fixtures.wav() : try Fixtures.h264AacMP4()
        let reply = try submit("/jobs/\(kind)?\(query)", input)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == "invalid_option")
        #expect(reply.errorMessage.contains(named), "\(reply.errorMessage)")
    }

    /// The size follows the source: a 96x48 video is under the 64 rows SVT-AV1 codes, which only the probe
    /// of the upload shows.
    @Test func aSourceSizeTheEncoderCannotTakeIsRefusedFromItsProbe() throws {
        let small = try Fixtures.make(
            "small_96x48.mp4",
            ["-f", "lavfi", "-i", "testsrc2=size=96x48:rate=25:duration=1", "-c:v", "libx264", "-f", "mp4"])
        let reply = try submit("/jobs/transcode?video_codec=av1&format=mkv", small)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == "invalid_option")
        #expect(reply.errorMessage.contains("96x48 source"), "\(reply.errorMessage)")
        let scaled = try submit("/jobs/transcode?video_codec=av1&format=mkv&height=64&preset=ultrafast&wait=120", small)
        #expect(scaled.json["state"] as? String == "succeeded", "\(scaled.text)")
    }

    /// 1100 s at 1 fps with a picture every second: 1100 pictures asked, over the 1000 a job takes.
    @Test func aThumbnailScheduleOverTheMaximumIsRefused() throws {
        let long = try Fixtures.make(
            "thumbs_1100s.mp4",
            [
                "-f", "lavfi", "-i", "color=c=gray:s=16x16:r=1:d=1100", "-c:v", "libx264", "-preset", "ultrafast",
                "-g", "60", "-f", "mp4",
            ])
        let reply = try submit("/jobs/thumbnails?every=1", long)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == "invalid_option")
        #expect(reply.errorMessage.contains("1100 pictures"), "\(reply.errorMessage)")
        #expect(reply.errorMessage.contains("maximum of 1000"), "\(reply.errorMessage)")
        let fits = try submit("/jobs/thumbnails?every=100&width=16&wait=60", long)
        #expect(fits.json["state"] as? String == "succeeded", "\(fits.text)")
        #expect(((fits.json["result"] as? [String: Any])?["thumbnails"] as? [Any])?.count == 11)
    }

    /// Seven renditions from a 2160p source need about 3 GiB of address space, over the default 2 GiB:
    /// refused with the estimate, the limit and what to change; the renditions that fit are accepted.
    @Test func aLadderOverTheMemoryLimitIsRefused() throws {
        let source = try Fixtures.make(
            "ladder_2160p_frame.mp4",
            [
                "-f", "lavfi", "-i", "color=c=gray:s=3840x2160:r=30:d=0.1", "-c:v", "libx264", "-preset",
                "ultrafast", "-f", "mp4",
            ])
        let all = "2160p,1440p,1080p,720p,480p,360p,240p"
        let reply = try submit("/jobs/package?renditions=\(all)", source)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == "invalid_option")
        for part in ["estimated", "2.0 GiB", "--job-memory", "2160p alone", "ultrafast"] {
            #expect(reply.errorMessage.contains(part), "\(reply.errorMessage)")
        }
        let fits = try submit("/jobs/package?renditions=720p,360p&wait=120", source)
        #expect(fits.json["state"] as? String == "succeeded", "\(fits.text)")
    }
}
