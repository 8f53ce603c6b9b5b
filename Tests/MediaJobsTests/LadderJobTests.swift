import Foundation
import MediaCore
@testable import MediaJobs
import Testing
import TestSupport

/// ABR ladders, judged by ffprobe and ffmpeg's HLS demuxer: every rendition has its keyframes at the same
/// times, one per segment duration, at the rung's size and profile (x264 `superfast`: `ultrafast` would
/// code the Main renditions as Constrained Baseline); renditions larger than the source are skipped with a
/// warning; what cannot be a ladder is refused before anything is written.
@Suite struct LadderJobTests {
    func package(_ input: String, in scratch: Scratch, _ values: [String: String]) throws -> PackageResult {
        let options = try PackageJob.Options(parsing: values)
        let primary = scratch.file(PackageJob.primaryOutput(for: options))
        return try PackageJob(input: input, primaryOutput: primary, options: options).run(JobContext())
    }

    /// The presentation times of the keyframes of a playlist's video, in seconds, as ffprobe reads them.
    func keyframeTimes(_ playlist: String) throws -> [Double] {
        let output = try Command.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0",
                playlist,
            ])
        return output.text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count == 2 && fields[1].hasPrefix("K") ? Double(fields[0]) : nil
        }.sorted()
    }

    @Test func encodesRenditionsWithKeyframesAtTheSameTimes() throws {
        let scratch = try Scratch("ladder")
        let source = try Fixtures.ladderSourceMP4()
        let result = try package(
            source, in: scratch,
            [
                "renditions": "240p,720p,480p,360p", "preset": "superfast", "segment_duration": "2",
                "format": "cmaf",
            ])
        #expect(result.renditions.map(\.name) == ["480p", "360p", "240p", "audio"])
        #expect(result.renditions.map(\.inputIndex) == [0, 0, 0, 1])
        #expect(
            result.warnings.contains { $0.contains("rendition 720p (1280x720) is larger than the source's 854x480") })
        // 854x480 is not exactly 16:9: its 240p is 427 pixels wide, which `scale=-2:240` rounds to 428.
        let sizes = [("480p", 854, 480), ("360p", 640, 360), ("240p", 428, 240)]
        var keyframes: [[Double]] = []
        for (name, width, height) in sizes {
            let playlist = scratch.file("\(name)/index.m3u8")
            let stream = try Oracle.streams(playlist)[0]
            #expect(stream["width"] as? Int == width && stream["height"] as? Int == height, "\(name)")
            #expect(stream["profile"] as? String == "Main", "\(name)")
            #expect(try Oracle.packetCount(playlist, stream: "v:0") == 180, "\(name)")
            keyframes.append(try keyframeTimes(playlist))
            let rendition = try #require(result.renditions.first { $0.name == name })
            #expect(rendition.codecs.hasPrefix("avc1.4d"), "\(rendition.codecs)")
            #expect(rendition.segmentDurations.map { ($0 * 1000).rounded() } == [2000, 2000, 2000], "\(name)")
        }
        let first = try #require(keyframes.first)
        #expect(first.count == 3)
        for (index, time) in first.enumerated() { #expect(abs(time - first[0] - Double(index) * 2) < 0.001) }
        #expect(keyframes.allSatisfy { $0 == first }, "\(keyframes)")
        #expect(result.renditions[3].codecs == "mp4a.40.2")
        #expect(!FileManager.default.fileExists(atPath: scratch.file(PackageJob.ladderIntermediateName)))
        let bitRates = result.renditions.prefix(3).map(\.averageBandwidth)
        #expect(bitRates == bitRates.sorted(by: >), "\(bitRates)")
    }

    /// A 320x240 source asked for 1080p and 720p gets one rendition at its own height, with a warning.
    @Test func keepsOneRenditionAtTheSourceSizeWhenAllAreLarger() throws {
        let scratch = try Scratch("ladder")
        let result = try package(
            try Fixtures.h264AacMP4(), in: scratch, ["renditions": "1080p,720p", "preset": "ultrafast"])
        #expect(result.renditions.map(\.name) == ["240p", "audio"])
        #expect(result.renditions[0].width == 320 && result.renditions[0].height == 240)
        #expect(result.warnings.contains { $0.contains("every rendition asked is larger") }, "\(result.warnings)")
        #expect(result.warnings.filter { $0.contains("was skipped") }.count == 2)
    }

    /// VP9 cannot go into MPEG-TS by stream copy, but a ladder re-encodes it to H.264, which can.
    @Test func laddersPutAnyVideoIntoTransportStreamSegments() throws {
        let scratch = try Scratch("ladder")
        let source = try Fixtures.make(
            "vp9.webm",
            ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libvpx-vp9", "-deadline"]
                + ["realtime", "-cpu-used", "8", "-f", "webm"])
        let result = try package(
            source, in: scratch, ["renditions": "240p", "preset": "ultrafast", "segment_format": "ts"])
        #expect(result.renditions.map(\.name) == ["120p"])
        #expect(result.renditions[0].codecs.hasPrefix("avc1."))
        #expect(try Oracle.packetCount(scratch.file("master.m3u8"), stream: "v:0") == 10)
    }

    @Test func refusesALadderOfASourceWithoutVideoBeforeWritingAnything() throws {
        let scratch = try Scratch("ladder")
        let source = try Fixtures.make(
            "tone.m4a",
            ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:a", "aac", "-f", "mp4"])
        let error = #expect(throws: MediaError.self) { try package(source, in: scratch, ["renditions": "360p"]) }
        #expect(error?.code == .invalidOption)
        #expect(try Scratch.listingIsOnly([], in: scratch))
    }

    @Test(arguments: [
        ["renditions": "4k"], ["renditions": "720p,,360p"], ["renditions": ""], ["renditions": "720p,720p"],
        ["preset": "fast"], ["renditions": "720p", "preset": "ludicrous"],
    ])
    func refusesBadLadderOptions(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try PackageJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }

    /// The ladder's options survive the job record: stored, read back, the same.
    @Test func ladderOptionsRoundTripThroughJSON() throws {
        let options = try PackageJob.Options(parsing: ["renditions": "360p,1080p"])
        #expect(options.renditions == [.p1080, .p360] && options.preset == .veryfast)
        let decoded = try JSONDecoder().decode(PackageJob.Options.self, from: JSONEncoder().encode(options))
        #expect(decoded == options)
        let plain = String(decoding: try JSONEncoder().encode(try PackageJob.Options(parsing: [:])), as: UTF8.self)
        #expect(!plain.contains("renditions") && !plain.contains("preset"))
    }
}
