import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// waveform against peaks computed here from the ffmpeg tool's own 16-bit decode (`-f s16le`), by a
/// Python script written from audiowaveform's rules, and its PNG as ffprobe and GStreamer read it.
@Suite struct WaveformJobTests {
    /// Min/max pairs of interleaved s16le samples, as audiowaveform computes them: the channels' integer
    /// mean truncated toward zero (or each channel alone), a pair per `spp` frames and one for a shorter
    /// rest, values divided by 256 toward zero for 8 bits.
    static let oracleScript = """
        import json, struct, sys
        path, channels, spp, bits, split = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
        raw = open(path, "rb").read()
        samples = struct.unpack("<%dh" % (len(raw) // 2), raw)
        outs = channels if split else 1
        def trunc(a, b):
            q = abs(a) // b
            return q if a >= 0 else -q
        data, lows, highs, count = [], [32767] * outs, [-32768] * outs, 0
        def close():
            for c in range(outs):
                data.extend([trunc(lows[c], 256 if bits == 8 else 1), trunc(highs[c], 256 if bits == 8 else 1)])
                lows[c], highs[c] = 32767, -32768
        for i in range(0, len(samples) - channels + 1, channels):
            frame = samples[i:i + channels]
            values = list(frame) if split else [trunc(sum(frame), channels)]
            for c, v in enumerate(values):
                lows[c] = min(lows[c], v)
                highs[c] = max(highs[c], v)
            count += 1
            if count == spp:
                close()
                count = 0
        if count:
            close()
        print(json.dumps({"length": len(data) // (2 * outs), "data": data}))
        """

    /// The peaks the script computes for the first audio track of `input`.
    static func expectedPeaks(_ input: String, channels: Int, samplesPerPixel: Int, bits: Int, split: Bool) throws
        -> (length: Int, data: [Int])
    {
        let scratch = try Scratch("waveformoracle")
        let pcm = scratch.file("samples.s16")
        try Command.run(
            "ffmpeg", ["-v", "error", "-i", input, "-map", "0:a:0", "-f", "s16le", "-c:a", "pcm_s16le", pcm])
        let output = try Command.run(
            "python3",
            ["-c", oracleScript, pcm, String(channels), String(samplesPerPixel), String(bits), split ? "1" : "0"])
        let json = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
        return (json["length"] as? Int ?? -1, json["data"] as? [Int] ?? [])
    }

    static func run(_ input: String, _ values: [String: String], in scratch: Scratch) throws -> WaveformResult {
        try WaveformJob(input: input, outputDirectory: scratch.path, options: try .init(parsing: values))
            .run(JobContext())
    }

    @Test(arguments: [
        (["samples_per_pixel": "300"], 300, 16, false),
        (["pixels_per_second": "50", "bits": "8"], 882, 8, false),
        (["samples_per_pixel": "1000", "split_channels": "true"], 1000, 16, true),
    ])
    func peaksMatchTheSamples(_ values: [String: String], _ samplesPerPixel: Int, _ bits: Int, _ split: Bool) throws {
        let scratch = try Scratch("waveform")
        let input = try Fixtures.wav()
        let result = try Self.run(input, values, in: scratch)
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: scratch.file("waveform.json"))))
                as? [String: Any])
        let expected = try Self.expectedPeaks(
            input, channels: 2, samplesPerPixel: samplesPerPixel, bits: bits, split: split)
        #expect(json["version"] as? Int == 2)
        #expect(json["channels"] as? Int == (split ? 2 : 1))
        #expect(json["sample_rate"] as? Int == 44100)
        #expect(json["samples_per_pixel"] as? Int == samplesPerPixel)
        #expect(json["bits"] as? Int == bits)
        #expect(json["length"] as? Int == expected.length)
        #expect(json["data"] as? [Int] == expected.data)
        #expect(result.length == expected.length)
        #expect(result.samples == 88200)
        #expect(try scratch.listing() == ["waveform.json", "waveform.png"])
    }

    @Test func aacPeaksAndThePictureAreRead() throws {
        let scratch = try Scratch("waveformaac")
        let input = try Fixtures.h264AacMP4()
        let result = try Self.run(
            input, ["width": "640", "height": "120", "waveform_color": "#ff0000", "background_color": "00000000"],
            in: scratch)
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: scratch.file("waveform.json"))))
                as? [String: Any])
        let expected = try Self.expectedPeaks(input, channels: 2, samplesPerPixel: 256, bits: 16, split: false)
        #expect(json["data"] as? [Int] == expected.data)
        #expect(result.channels == 1 && result.sampleRate == 48000)
        let picture = try #require(try Oracle.streams(scratch.file("waveform.png")).first)
        #expect(picture["codec_name"] as? String == "png")
        #expect(picture["width"] as? Int == 640)
        #expect(picture["height"] as? Int == 120)
        #expect(picture["pix_fmt"] as? String == "rgba")
        #expect(try Parsers.gstreamerProblems(scratch.file("waveform.png"), streams: 1) == [])
        // The tone fills the picture's middle rows in red and leaves the top row transparent.
        let pixels = try Command.run(
            "ffmpeg", ["-v", "error", "-i", scratch.file("waveform.png"), "-f", "rawvideo", "-pix_fmt", "rgba", "-"]
        ).stdout
        let middle = (60 * 640 + 320) * 4
        #expect(Array(pixels[middle..<middle + 4]) == [255, 0, 0, 255])
        #expect(Array(pixels[0..<4]) == [0, 0, 0, 0])
    }

    @Test(arguments: [
        ["bits": "12"], ["samples_per_pixel": "1"], ["samples_per_pixel": "64", "pixels_per_second": "10"],
        ["width": "8"], ["height": "20000"], ["waveform_color": "blue"], ["split_channels": "maybe"], ["zoom": "2"],
    ])
    func refusesBadOptions(_ values: [String: String]) {
        let error = #expect(throws: MediaError.self) { try WaveformJob.Options(parsing: values) }
        #expect(error?.code == .invalidOption)
    }

    @Test func needsAnAudioTrack() throws {
        let scratch = try Scratch("waveformnoaudio")
        let error = #expect(throws: MediaError.self) {
            try Self.run(try Fixtures.h264NoBFramesMP4(), [:], in: scratch)
        }
        #expect(error?.code == .missingStream)
        let tooFine = #expect(throws: MediaError.self) {
            try Self.run(try Fixtures.wav(), ["pixels_per_second": "30000"], in: scratch)
        }
        #expect(tooFine?.code == .invalidOption)
        #expect(try scratch.listing() == [])
    }
}
