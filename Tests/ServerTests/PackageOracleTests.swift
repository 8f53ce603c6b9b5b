import Foundation
import TestSupport
import Testing

/// The package oracle (`package_manifests.py`) itself: it reads a finished package clean, and it reports a
/// media playlist without `#EXT-X-ENDLIST`, one with a segment missing, and an MPD whose timeline leaves a
/// gap. The finished CMAF package of a real server is copied and altered, and each copy served by
/// `Peers/file_server.py` (http.server, whose answers lack the CORS header and some media types the
/// oracle asks of mediad's: those problems are set aside here).
@Suite(.serialized) struct PackageOracleTests {
    @Test func oracleRefusesAnOpenOrGappedManifest() throws {
        let scratch = try Scratch("package-oracle")
        let server = try ServerProcess()
        let job = try PackageServerTests().package(
            server, try PackageWhileRunningTests.source(), "format=cmaf&segment_duration=1")
        let id = try #require(job["id"] as? String)
        let outputs = server.dataDirectory + "/jobs/\(id)/outputs"
        for copy in ["intact", "open", "missing", "gap"] {
            try FileManager.default.copyItem(atPath: outputs, toPath: scratch.file(copy))
        }
        let playlist = try String(contentsOfFile: outputs + "/120p/index.m3u8", encoding: .utf8)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        try String(playlist.dropLast("#EXT-X-ENDLIST\n".count)).write(
            toFile: scratch.file("open/120p/index.m3u8"), atomically: true, encoding: .utf8)
        let withoutSecond = playlist.replacingOccurrences(
            of: #"#EXTINF:[0-9.]+,\nseg_00002.m4s\n"#, with: "", options: .regularExpression)
        #expect(withoutSecond != playlist)
        try withoutSecond.write(toFile: scratch.file("missing/120p/index.m3u8"), atomically: true, encoding: .utf8)
        let mpd = try String(contentsOfFile: outputs + "/manifest.mpd", encoding: .utf8)
        let gapped = try #require(Self.skippingSecondSegment(mpd), "\(mpd)")
        try gapped.write(toFile: scratch.file("gap/manifest.mpd"), atomically: true, encoding: .utf8)

        let peer = try PeerProcess.script("file_server.py", [scratch.path])
        defer { peer.stop() }
        #expect(try problems(peer.url + "/intact/master.m3u8") == [])
        #expect(try problems(peer.url + "/intact/manifest.mpd") == [])
        let open = try problems(peer.url + "/open/master.m3u8")
        #expect(open == ["\(peer.url)/open/120p/index.m3u8: not an EVENT playlist ended with EXT-X-ENDLIST"])
        let missing = try problems(peer.url + "/missing/master.m3u8")
        #expect(missing == ["\(peer.url)/missing/120p/index.m3u8: a gap: segment 2 is seg_00003.m4s"])
        let gap = try problems(peer.url + "/gap/manifest.mpd")
        #expect(gap.count == 1 && gap[0].hasPrefix("120p: a gap: segment 2 starts at "), "\(gap)")
    }

    /// What the oracle reports reading `url`, but for the headers http.server does not send as mediad does.
    func problems(_ url: String) throws -> [String] {
        let run = try Command.run("python3", [PackageServerTests.manifestChecker, url], allowFailure: true)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        return (report["problems"] as? [String] ?? []).filter {
            !$0.contains(": no Access-Control-Allow-Origin") && !$0.contains(": Content-Type ")
        }
    }

    /// `mpd` with its first timeline's second segment starting one segment late: the first `S`, which must
    /// repeat at least twice, split in two around a hole as long as a segment.
    static func skippingSecondSegment(_ mpd: String) -> String? {
        let pattern = #"<S t="([0-9]+)" d="([0-9]+)" r="([0-9]+)"/>"#
        guard let found = mpd.range(of: pattern, options: .regularExpression) else { return nil }
        let element = String(mpd[found])
        let numbers = element.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count == 3, numbers[2] >= 2 else { return nil }
        let (start, duration, repeats) = (numbers[0], numbers[1], numbers[2])
        let later = start + 2 * duration
        let split = #"<S t="\#(start)" d="\#(duration)"/><S t="\#(later)" d="\#(duration)" r="\#(repeats - 2)"/>"#
        return mpd.replacingCharacters(in: found, with: split)
    }
}
