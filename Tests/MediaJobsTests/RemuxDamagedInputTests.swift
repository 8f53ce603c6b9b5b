import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Files that are malformed, cut, or beyond mediad's old limits but that libav reads (with a warning of its
/// own): remux copies what libav reads, as the ffmpeg CLI does, says in `warnings` what is wrong, and each
/// output decodes as the input does. `damaged=refuse` refuses the damaged ones.
@Suite struct RemuxDamagedInputTests {
    /// 2 s of 160x120 H.264 and AAC, `moov` first.
    static func plainMP4() throws -> String {
        try Fixtures.make(
            "plain-faststart.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-movflags", "+faststart", "-f", "mp4",
            ])
    }

    /// `path`'s bytes with `patch` applied at the first `type` box after the first `after` box (its offset
    /// is the type's first byte).
    static func patched(
        _ path: String, _ type: String, after: String = "moov", in scratch: Scratch,
        _ patch: (inout [UInt8], Int) -> Void
    ) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func find(_ name: String, from start: Int) -> Int? {
            let marker = Array(name.utf8)
            return (start..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == marker }
        }
        let parent = try #require(find(after, from: 4))
        let at = try #require(find(type, from: parent))
        patch(&bytes, at)
        return try scratch.write("damaged-\(type).mp4", bytes)
    }

    static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    static func setBigEndian(_ value: UInt32, _ bytes: inout [UInt8], _ at: Int) {
        for index in 0..<4 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
    }

    /// Salvaged to `format`: a warning starting `code`, every packet ffprobe reads, decoded as the input.
    static func expectKept(_ input: String, _ format: ContainerFormat, warning code: String, mentioning: String)
        throws
    {
        let scratch = try Scratch("damaged")
        let (output, result) = try remux(input, to: format, in: scratch)
        #expect(result.warnings.contains { $0.hasPrefix(code) && $0.contains(mentioning) }, "\(result.warnings)")
        for spec in ["v:0", "a:0"] {
            #expect(try Oracle.packetCount(output, stream: spec) == Oracle.packetCount(input, stream: spec), "\(spec)")
        }
        #expect(
            try Lossless.problems(input: input, output: output, primingMayShow: format == .mkv, hiddenMayShow: true)
                == [])
        let refused = #expect(throws: MediaError.self) {
            try remux(input, to: format, in: scratch, ["damaged": "refuse"])
        }
        #expect(refused?.code.rawValue == String(code.dropLast(2)))
    }

    @Test(arguments: [ContainerFormat.mp4, .mkv])
    func aZeroTimescaleIsReadAsLibavReadsIt(_ format: ContainerFormat) throws {
        let scratch = try Scratch("timescale")
        let input = try Self.patched(try Self.plainMP4(), "mdhd", in: scratch) { bytes, at in
            Self.setBigEndian(0, &bytes, at + 4 + 12)
        }
        try Self.expectKept(
            input, format, warning: "invalid_input: ", mentioning: "the 'mdhd' box has a timescale of 0")
    }

    /// An `stsz` that counts five samples more than it lists (and than the chunks hold).
    @Test(arguments: [ContainerFormat.mp4, .mkv])
    func aSampleSizeTableShorterThanItsCountIsRead(_ format: ContainerFormat) throws {
        let scratch = try Scratch("stsz")
        let input = try Self.patched(try Self.plainMP4(), "stsz", in: scratch) { bytes, at in
            Self.setBigEndian(Self.bigEndian(bytes, at + 12) + 5, &bytes, at + 12)
        }
        try Self.expectKept(
            input, format, warning: "invalid_input: ", mentioning: "libav reads the rest from the bytes that follow it")
    }

    /// Three stray bytes after the last box: the file ends inside a box header, and nothing is lost.
    @Test func aFileEndingInsideABoxHeaderLosesNothing() throws {
        let scratch = try Scratch("header")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.plainMP4())))
        let input = try scratch.write("tail.mp4", bytes + [0, 0, 1])
        try Self.expectKept(input, .mkv, warning: "truncated_input: ", mentioning: "the file ends inside a box header")
        let (_, result) = try remux(input, to: .mp4, in: scratch)
        #expect(!result.warnings.contains { $0.contains("could not be read") }, "\(result.warnings)")
    }

    /// A fragment whose run points before the start of the file: libav's reading fails there, and the CLI's
    /// stops; so does remux's, keeping the fragments before it.
    @Test func aReadErrorEndsTheReadingAsTheCLIsEnds() throws {
        let scratch = try Scratch("readerror")
        let fragmented = try Fixtures.make(
            "fragmented-video.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4", "-c:v", "libx264", "-preset",
                "ultrafast", "-g", "25", "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-f", "mp4",
            ])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fragmented)))
        let runs = (4..<bytes.count - 4).filter { Array(bytes[$0..<$0 + 4]) == Array("trun".utf8) }
        #expect(runs.count >= 4)
        // The third run's data offset (after version, flags and count) goes far before its `moof`.
        Self.setBigEndian(UInt32(bitPattern: -10_000_000), &bytes, runs[2] + 4 + 8)
        let input = try scratch.write("negative.mp4", bytes)
        let (output, result) = try remux(input, to: .mkv, in: scratch)
        let warnings = result.warnings.joined(separator: " | ")
        #expect(warnings.contains("invalid_input: the 'trun' box at byte"), "\(warnings)")
        #expect(warnings.contains("reading stopped at byte"), "\(warnings)")
        let readable = try Oracle.packetCount(input, stream: "v:0")
        #expect(readable == 50 && result.tracks.first?.packets == readable, "\(readable)")
        #expect(try Lossless.problems(input: input, output: output, primingMayShow: true) == [])
    }

    /// Raw ADTS whose last frame the end of the file cuts: every whole frame is kept.
    @Test func rawAACCutMidFrameKeepsItsWholeFrames() throws {
        let scratch = try Scratch("adts")
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.adts())))
        let cut = try scratch.write("cut.aac", Array(whole.dropLast(100)))
        let (output, result) = try remux(cut, to: .mkv, in: scratch)
        let warning = try #require(result.warnings.first)
        #expect(warning.hasPrefix("truncated_input: the ADTS frame at byte"), "\(warning)")
        #expect(warning.contains("that last frame could not be read; the output lasts"), "\(warning)")
        let frames = try Oracle.packetCount(try Fixtures.adts(), stream: "a:0")
        #expect(try Oracle.packetCount(output, stream: "a:0") == frames - 1)
        let kept = try Oracle.decodeAudio(output, stream: "a:0")
        let decoded = try Oracle.decodeAudio(try Fixtures.adts(), stream: "a:0")
        #expect(!kept.isEmpty && decoded.starts(with: kept))
        let refused = #expect(throws: MediaError.self) { try remux(cut, to: .mkv, in: scratch, ["damaged": "refuse"]) }
        #expect(refused?.code == .truncatedInput)
    }

    /// A file of 100 audio tracks (the old limit was 64): every one is copied.
    @Test func aHundredTracksAreCopied() throws {
        let scratch = try Scratch("tracks")
        let one = try Fixtures.make(
            "one-tone.m4a", ["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", "-f", "ipod"])
        let maps = (0..<100).flatMap { _ in ["-map", "0:a"] }
        let many = try Fixtures.make("hundred-tracks.mp4", ["-i", one] + maps + ["-c", "copy", "-f", "mp4"])
        let (output, result) = try remux(many, to: .mkv, in: scratch)
        #expect(result.tracks.count == 100)
        #expect(try Oracle.streams(output).count == 100)
        #expect(try Oracle.packetCount(output, stream: "a:99") == Oracle.packetCount(one, stream: "a:0"))
    }

    /// A video track of a codec libav does not know (here an H.264 sample entry renamed `vvc1`, as VVC is
    /// to libav 5.1) is copied into Matroska by its FourCC, every packet's bytes as they are; mp4 names mkv.
    @Test func anUnknownVideoCodecGoesIntoMatroskaByItsFourCC() throws {
        let scratch = try Scratch("fourcc")
        let video = try Fixtures.make(
            "video-only.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-preset",
                "ultrafast", "-f", "mp4",
            ])
        let input = try Self.patched(video, "avc1", after: "stsd", in: scratch) { bytes, at in
            bytes.replaceSubrange(at..<at + 4, with: Array("vvc1".utf8))
        }
        #expect(try Oracle.streams(input).first?["codec_tag_string"] as? String == "vvc1")
        let (output, result) = try remux(input, to: .mkv, in: scratch)
        #expect(result.tracks.map(\.codec) == ["vvc1"])
        #expect(result.warnings.contains { $0.contains("by its FourCC, in Matroska's VFW compatibility mode") })
        #expect(try Oracle.streams(output).first?["codec_tag_string"] as? String == "vvc1")
        #expect(try Oracle.packetPayload(output, stream: "v:0") == Oracle.packetPayload(input, stream: "v:0"))
        let error = #expect(throws: MediaError.self) { try remux(input, to: .mp4, in: scratch) }
        #expect(error?.code == .unsupportedCodec)
        #expect(
            error?.message.hasSuffix("formats that can: mkv (by its FourCC)") == true, "\(String(describing: error))")
    }

    /// Raw MPEG-4 Part 2 video, as `.m4v` files hold it, is recognised, and timed as its video object
    /// layer says (here 20 fps).
    @Test func rawMPEG4VideoIsRemuxed() throws {
        let scratch = try Scratch("m4v")
        let raw = try Fixtures.make(
            "raw.m4v", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=20:duration=1", "-c:v", "mpeg4", "-f", "m4v"])
        #expect(try InputSniffer.sniff(path: raw) == .container(.mpeg4Video))
        for format in [ContainerFormat.mp4, .mkv] {
            let (output, result) = try remux(raw, to: format, in: scratch)
            #expect(result.warnings == [])
            #expect(try Oracle.frameHashes(output, stream: "v:0") == Oracle.frameHashes(raw, stream: "v:0"))
            #expect(try Oracle.packetCount(output, stream: "v:0") == 20)
            let duration = Double(try Oracle.format(output)["duration"] as? String ?? "") ?? 0
            #expect(abs(duration - 1) < 0.06, "\(format): \(duration)")
        }
    }
}
