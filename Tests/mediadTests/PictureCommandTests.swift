import Foundation
import TestSupport
import Testing

/// thumbnails, waveform, decode to frames and probe --loudness from the real `mediad` binary.
@Suite struct PictureCommandTests {
    func mediad(_ arguments: String...) throws -> Command.Output {
        try Command.run(CommandLineTests.binary, arguments, allowFailure: true)
    }

    @Test func thumbnailsWritesPicturesAndASprite() throws {
        let scratch = try Scratch("clithumbs")
        let result = try mediad(
            "thumbnails", try Fixtures.h264AacMP4(), "-o", scratch.file("thumbs"), "--every", "1", "--width", "96",
            "--format", "png", "--sprite", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect((object["thumbnails"] as? [Any])?.count == 3)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("thumbs")).sorted()
                == ["sprite.png", "sprite.vtt", "thumb_0001.png", "thumb_0002.png", "thumb_0003.png"])
        #expect(try Oracle.streams(scratch.file("thumbs/sprite.png")).first?["width"] as? Int == 288)
        let refused = try mediad("thumbnails", try Fixtures.h264AacMP4(), "-o", scratch.file("x"), "--count", "0")
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: invalid_option: "))
    }

    @Test func waveformWritesPeaksAndAPicture() throws {
        let scratch = try Scratch("cliwave")
        let result = try mediad(
            "waveform", try Fixtures.wav(), "-o", scratch.path, "--samples-per-pixel", "441", "--split-channels",
            "--height", "100")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == scratch.file("waveform.json") + "\n" + scratch.file("waveform.png") + "\n")
        let peaks = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: scratch.file("waveform.json"))))
                as? [String: Any])
        #expect(peaks["channels"] as? Int == 2 && peaks["length"] as? Int == 200)
        #expect(try Oracle.streams(scratch.file("waveform.png")).first?["height"] as? Int == 100)
    }

    @Test func decodeWritesFramesByTheExtension() throws {
        let scratch = try Scratch("clidecode")
        let output = scratch.file("camera.nv12")
        let result = try mediad("decode", try Fixtures.hevcAnnexB(), "-o", output, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["pixel_format"] as? String == "nv12")
        #expect(object["frames"] as? Int == 50)
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
        #expect(size == 320 * 240 * 3 / 2 * 50)
    }

    @Test func probeReportsLoudness() throws {
        let result = try mediad("probe", try Fixtures.wav(), "--loudness")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("LUFS integrated"))
        #expect(result.text.contains("dBTP true peak"))
        let json = try mediad("probe", try Fixtures.wav(), "--loudness", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let track = try #require((object["tracks"] as? [[String: Any]])?.first)
        #expect((track["loudness"] as? [String: Any])?["integrated"] is Double)
    }
}
