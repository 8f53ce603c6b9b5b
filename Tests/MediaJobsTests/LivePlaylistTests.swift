import Foundation
@testable import MediaJobs
import Synchronization
import Testing
import TestSupport

/// An HLS package by stream copy publishes its playlists while it runs (`LivePlaylists`): every version of a
/// media playlist the job leaves on disk, read between packets (at each checkpoint), is an `EVENT` playlist
/// without `#EXT-X-ENDLIST` whose segments all exist, and is the start of every later version and of the
/// final playlist, as RFC 8216 §6.2.1 asks of an `EVENT` playlist; the master playlist exists before the
/// end. A segment longer than the target duration announced stops the playlists, with a warning.
@Suite struct LivePlaylistTests {
    /// Every distinct version of the playlists `names` seen at the job's checkpoints, and the segments a
    /// version listed that did not exist when it was read.
    final class Snapshots: Sendable {
        let directory: String
        let names: [String]
        let versions = Mutex<[String: [String]]>([:])
        let missing = Mutex<[String]>([])

        init(directory: String, names: [String]) {
            self.directory = directory
            self.names = names
        }

        func take() {
            for name in names {
                guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) else { continue }
                let folder = (name as NSString).deletingLastPathComponent
                for uri in text.split(separator: "\n") where !uri.hasPrefix("#") {
                    let path = directory + "/" + (folder.isEmpty ? "" : folder + "/") + uri
                    if !FileManager.default.fileExists(atPath: path) { missing.withLock { $0.append(path) } }
                }
                versions.withLock { seen in
                    if seen[name]?.last != text { seen[name, default: []].append(text) }
                }
            }
        }
    }

    /// Packages `source` with 1 s segments, reading the playlists at every checkpoint.
    func package(_ source: String, in scratch: Scratch, reading names: [String]) throws -> (PackageResult, Snapshots) {
        let options = try PackageJob.Options(parsing: ["segment_duration": "1"])
        let snapshots = Snapshots(directory: scratch.path, names: names)
        let context = JobContext(checkResources: { snapshots.take() })
        let result = try PackageJob(input: source, primaryOutput: scratch.file("master.m3u8"), options: options)
            .run(context)
        return (result, snapshots)
    }

    /// `seconds` of 160x120 25 fps H.264 and AAC, keyframes at `keyframes` (x264 places no other one).
    static func source(seconds: Int, keyframes: String) throws -> String {
        try Fixtures.make(
            "live_\(seconds).mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=\(seconds)", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-g", "1000", "-sc_threshold", "0", "-force_key_frames", keyframes, "-c:a",
                "aac", "-b:a", "64k", "-shortest", "-f", "mp4",
            ])
    }

    @Test func mediaPlaylistsOnlyGrowWhileThePackageIsWritten() throws {
        let scratch = try Scratch("live-playlists")
        let source = try Self.source(seconds: 20, keyframes: "expr:gte(t,n_forced)")
        let names = ["120p/index.m3u8", "audio/index.m3u8", "master.m3u8"]
        let (result, snapshots) = try package(source, in: scratch, reading: names)
        #expect(result.warnings.allSatisfy { !$0.contains("stopped growing") }, "\(result.warnings)")
        #expect(snapshots.missing.withLock { $0 } == [])
        let versions = snapshots.versions.withLock { $0 }
        for name in names.prefix(2) {
            let seen = versions[name] ?? []
            #expect(seen.count >= 5, "\(name): \(seen.count) versions while the job ran")
            let final = try String(contentsOfFile: scratch.file(name), encoding: .utf8)
            #expect(final.hasSuffix("#EXT-X-ENDLIST\n"))
            #expect(final.contains("#EXT-X-PLAYLIST-TYPE:EVENT\n") && final.contains("#EXT-X-TARGETDURATION:1\n"))
            for version in seen {
                #expect(version.contains("#EXT-X-PLAYLIST-TYPE:EVENT\n") && !version.contains("#EXT-X-ENDLIST"))
                #expect(final.hasPrefix(version), "\(name): a version is not the start of the final playlist")
            }
        }
        // Written once while the job ran, without the I-frame variant, whose playlist comes at the end.
        let masters = versions["master.m3u8"] ?? []
        #expect(masters.count == 1 && masters.allSatisfy { $0.contains("BANDWIDTH=") && !$0.contains("I-FRAME") })
        let master = try String(contentsOfFile: scratch.file("master.m3u8"), encoding: .utf8)
        #expect(master.contains("#EXT-X-I-FRAME-STREAM-INF"))
        #expect(try Oracle.frameHashes(scratch.file("master.m3u8"), stream: "v:0").count == 500)
        #expect(result.outputs.count == Set(result.outputs).count, "an output listed twice")
    }

    /// Keyframes a second apart, then seven seconds apart: the playlists announced a 1 s target and stop
    /// growing at the long segment; the final playlists announce 7 s and a warning says why.
    @Test func aSegmentLongerThanTheTargetStopsThePlaylists() throws {
        let scratch = try Scratch("live-stopped")
        let source = try Self.source(seconds: 16, keyframes: "0,1,2,3,4,5,12,13,14,15")
        let (result, snapshots) = try package(source, in: scratch, reading: ["120p/index.m3u8"])
        let seen = snapshots.versions.withLock { $0 }["120p/index.m3u8"] ?? []
        #expect(!seen.isEmpty)
        for version in seen {
            #expect(version.contains("#EXT-X-TARGETDURATION:1\n") && !version.contains("seg_00006"), "\(version)")
        }
        let final = try String(contentsOfFile: scratch.file("120p/index.m3u8"), encoding: .utf8)
        #expect(final.contains("#EXT-X-TARGETDURATION:7\n") && final.hasSuffix("#EXT-X-ENDLIST\n"), "\(final)")
        #expect(result.warnings.contains { $0.contains("stopped growing") }, "\(result.warnings)")
    }
}
