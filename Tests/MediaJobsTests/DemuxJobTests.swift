import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

@Suite struct DemuxJobTests {
    /// NAL unit types of an Annex-B file, in order.
    func nalTypes(_ path: String, hevc: Bool) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return bytes.withUnsafeBufferPointer { buffer in
            AnnexB.nalUnits(in: buffer).map {
                hevc ? Int(buffer[$0.lowerBound] >> 1) & 0x3F : Int(buffer[$0.lowerBound] & 0x1F)
            }
        }
    }

    @Test func splitsH264AndAACIntoElementaryStreams() throws {
        let scratch = try Scratch("demux")
        let input = try Fixtures.h264AacMP4()
        let result = try DemuxJob(input: input, outputDirectory: scratch.path).run(JobContext())
        #expect(try scratch.listing() == ["audio.aac", "info.json", "video.h264"])
        #expect(
            result.outputs.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "video.h264", "audio.aac", "info.json",
            ])

        let video = scratch.file("video.h264")
        #expect(try Oracle.format(video)["format_name"] as? String == "h264")
        #expect(try Oracle.decodedHashes(video) == Oracle.decodedHashes(input, streams: "0:v"))
        let audio = scratch.file("audio.aac")
        let audioStream = try #require(try Oracle.streams(audio).first)
        #expect(try Oracle.format(audio)["format_name"] as? String == "aac")
        #expect(audioStream["sample_rate"] as? String == "48000")
        #expect(audioStream["channels"] as? Int == 2)
        #expect(try Oracle.packetCount(audio, stream: "a:0") == Oracle.packetCount(input, stream: "a:0"))
    }

    @Test func putsParameterSetsBeforeEveryKeyframe() throws {
        let scratch = try Scratch("demux")
        _ = try DemuxJob(input: try Fixtures.h264AacMP4(), outputDirectory: scratch.path).run(JobContext())
        let types = try nalTypes(scratch.file("video.h264"), hevc: false)
        let idrStarts = types.indices.filter { types[$0] == 5 && (($0 == 0) || types[$0 - 1] != 5) }
        #expect(idrStarts.count == 3)
        for index in idrStarts {
            let before = types[..<index].reversed().prefix { $0 != 1 && $0 != 5 }
            #expect(before.contains(7) && before.contains(8), "IDR at NAL \(index) has no SPS/PPS before it")
        }
    }

    @Test func writesH265WithVPSSPSPPSBeforeEachIRAP() throws {
        let scratch = try Scratch("demux")
        let input = try Fixtures.hevcAacMP4()
        _ = try DemuxJob(input: input, outputDirectory: scratch.path).run(JobContext())
        let video = scratch.file("video.h265")
        #expect(try Oracle.decodedHashes(video) == Oracle.decodedHashes(input, streams: "0:v"))
        let types = try nalTypes(video, hevc: true)
        let iraps = types.indices.filter { (16...23).contains(types[$0]) }
        #expect(!iraps.isEmpty)
        for index in iraps {
            let before = types[..<index].reversed().prefix { !(0...31).contains($0) }
            #expect(before.contains(32) && before.contains(33) && before.contains(34))
        }
        let audio = try #require(try Oracle.streams(scratch.file("audio.aac")).first)
        #expect(audio["sample_rate"] as? String == "44100")
        #expect(audio["channels"] as? Int == 1)
    }

    @Test func describesEveryTrackInInfoJSON() throws {
        let scratch = try Scratch("demux")
        let input = RealMedia.directory + "/shaka-project_shaka-player/small.mp4"
        let result = try DemuxJob(input: input, outputDirectory: scratch.path).run(JobContext())
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.file("info.json")))
        let info = try MediaJSON.decode(MediaInfo.self, from: data)
        #expect(info == result.info)
        #expect(info.tracks.map(\.output) == ["video.h264", "audio.aac", nil])
        #expect(info.tracks[2].skipped?.contains("data tracks are not extracted") == true)
        #expect(info.tracks[1].primingSamples == 1024)
        #expect(result.warnings.contains { $0.contains("1024-sample AAC encoder delay") })
    }

    /// Found by fuzzing: an `hvcC` whose first NAL unit array has type 5 made `hevc_mp4toannexb` fail to
    /// start, and the filter's context was then freed twice (the worker died of SIGABRT).
    @Test func refusesAnHVCCWithAnUnknownNALArrayType() throws {
        let scratch = try Scratch("demux")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.hevcAacMP4())))
        let type = try #require(
            bytes.indices.first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("hvcC".utf8) })
        // After the type: 22 bytes of configuration, numOfArrays, then the first array's NAL unit type.
        let firstArray = type + 4 + 23
        bytes[firstArray] = (bytes[firstArray] & 0xC0) | 5
        let input = try scratch.write("input.mp4", bytes)
        let error = #expect(throws: MediaError.self) {
            try DemuxJob(input: input, outputDirectory: scratch.file("out")).run(JobContext())
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("hevc_mp4toannexb") == true, "\(String(describing: error))")
    }

    @Test func refusesNonMP4Inputs() throws {
        let scratch = try Scratch("demux")
        let mkv = scratch.file("input.mkv")
        try Command.run("ffmpeg", ["-v", "error", "-i", try Fixtures.h264AacMP4(), "-c", "copy", mkv])
        let error = #expect(throws: MediaError.self) {
            try DemuxJob(input: mkv, outputDirectory: scratch.file("out")).run(JobContext())
        }
        #expect(error?.code == .unsupportedFormat)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
    }

    @Test func refusesAnMP4WithNothingToExtract() throws {
        let scratch = try Scratch("demux")
        let input = scratch.file("pcm.mov")
        try Command.run(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "pcm_s16le", input])
        let error = #expect(throws: MediaError.self) {
            try DemuxJob(input: input, outputDirectory: scratch.file("out")).run(JobContext())
        }
        #expect(error?.code == .missingStream)
        #expect(try scratch.listing() == ["pcm.mov"])
    }
}
