import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

@Suite struct ProbeJobTests {
    @Test func describesAnH264AndAACFile() throws {
        let info = try ProbeJob(input: try Fixtures.h264AacMP4()).run()
        #expect(info.container == "mp4")
        #expect(info.majorBrand == "isom")
        let duration = try #require(info.duration)
        #expect(abs(duration - 3) < 0.05)
        let video = try #require(info.tracks.first { $0.kind == "video" })
        #expect(video.codec == "h264")
        #expect(video.profile == "High")
        #expect(video.width == 320 && video.height == 240)
        #expect(video.frameRate == "30/1")
        #expect(video.frameCount == 90)
        let audio = try #require(info.tracks.first { $0.kind == "audio" })
        #expect(audio.codec == "aac")
        #expect(audio.profile == "LC")
        #expect(audio.sampleRate == 48000)
        #expect(audio.channels == 2)
        #expect(audio.channelLayout == "stereo")
    }

    @Test func agreesWithFFprobe() throws {
        let path = try Fixtures.hevcAacMP4()
        let info = try ProbeJob(input: path).run()
        let streams = try Oracle.streams(path)
        #expect(info.tracks.count == streams.count)
        for (track, stream) in zip(info.tracks, streams) {
            #expect(track.codec == stream["codec_name"] as? String)
            #expect(track.kind == stream["codec_type"] as? String)
            #expect(track.codecTag == stream["codec_tag_string"] as? String)
        }
        #expect(info.tracks.first { $0.kind == "audio" }?.language == "deu")
        #expect(info.tags?["creation_time"]?.hasPrefix("2024-01-02T03:04:05") == true)
    }

    @Test func readsRotationAsClockwiseDegrees() throws {
        let path = RealMedia.directory + "/Jsonize_jsonize-ffmpeg-task/iphone_rotated.mov"
        let info = try ProbeJob(input: path).run()
        #expect(info.tracks.first { $0.kind == "video" }?.rotation == 90)
    }

    @Test func encodesAsSnakeCaseJSON() throws {
        let info = try ProbeJob(input: try Fixtures.h264AacMP4()).run()
        let json = String(decoding: try MediaJSON.encode(info), as: UTF8.self)
        #expect(json.contains("\"sample_rate\" : 48000"))
        #expect(json.contains("\"format_name\" : \"mov,mp4,m4a,3gp,3g2,mj2\""))
        #expect(try MediaJSON.decode(MediaInfo.self, from: Data(json.utf8)) == info)
    }

    @Test(arguments: [
        (Array("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nother.ts\n".utf8), "unsupported_format"),
        (Array("ffconcat version 1.0\nfile 'other.mp4'\n".utf8), "unsupported_format"),
        (Array("just some words\n".utf8), "unsupported_format"),
        ([UInt8](), "empty_input"),
    ])
    func refusesWhatIsNotMedia(bytes: [UInt8], code: String) throws {
        let scratch = try Scratch("probe")
        let path = try scratch.write("input.mp4", bytes)
        let error = #expect(throws: MediaError.self) { try ProbeJob(input: path).run() }
        #expect(error?.code.rawValue == code)
    }

    @Test func refusesRandomBytes() throws {
        let scratch = try Scratch("probe")
        var generator = SeededBytes(seed: 7)
        let path = try scratch.write("random.bin", generator.next(count: 50_000))
        let error = #expect(throws: MediaError.self) { try ProbeJob(input: path).run() }
        #expect(error?.code == .unsupportedFormat)
    }

    /// Cut in half, the file has lost its `moov` (at the end): nothing is left to describe.
    @Test func reportsATruncatedMP4AsTruncated() throws {
        let scratch = try Scratch("probe")
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.h264AacMP4()))
        let path = try scratch.write("cut.mp4", [UInt8](whole.prefix(whole.count / 2)))
        let error = #expect(throws: MediaError.self) { try ProbeJob(input: path).run() }
        #expect(error?.code == .truncatedInput)
        #expect(error?.message.hasSuffix("what is left has no 'moov' box (no track descriptions)") == true)
    }
}
