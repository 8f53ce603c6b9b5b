import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// Inputs whose headers promise more than the file holds. By default (`damaged=salvage`) a job succeeds
/// with what libav reads of them, as the ffmpeg CLI does, and its `truncated_input` warning says what was
/// lost: checked against ffprobe's count of the packets of the cut file (what is readable) and of the
/// whole one (what the tables declare), and the decoded frames of what was kept against the whole
/// file's: nothing is invented. `damaged=refuse` fails them as before; a file with nothing readable fails
/// either way.
@Suite struct TruncatedInputTests {
    /// `mp4` with `shift` added to the chunk offsets that `select` picks from each `stco` box
    /// (given the entry count), so the box structure stays sound but those samples lie past the end.
    static func shiftingChunkOffsets(
        of mp4: String, by shift: UInt32, select: (_ index: Int, _ count: Int) -> Bool
    ) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4)))
        let type = Array("stco".utf8)
        var found = 0
        var position = 4
        while position + 8 <= bytes.count {
            defer { position += 1 }
            guard Array(bytes[position..<position + 4]) == type else { continue }
            found += 1
            let count = Int(readBigEndian(bytes, position + 8))
            for index in 0..<count where select(index, count) {
                let at = position + 12 + 4 * index
                let moved = readBigEndian(bytes, at) &+ shift
                for byte in 0..<4 { bytes[at + byte] = UInt8(truncatingIfNeeded: moved >> (24 - 8 * UInt32(byte))) }
            }
        }
        #expect(found == 2)
        return bytes
    }

    static func readBigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// 4 s of 320x240 H.264 (B-frames, a keyframe a second) and AAC, `moov` first: a recording whose
    /// end a cut takes without touching its tables.
    static func faststartMP4() throws -> String {
        try Fixtures.make(
            "faststart.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=4", "-c:v", "libx264", "-preset", "veryfast", "-g",
                "25", "-c:a", "aac", "-movflags", "+faststart", "-f", "mp4",
            ])
    }

    /// The same, fragmented: a `moof`/`mdat` pair a second.
    static func fragmentedMP4() throws -> String {
        try Fixtures.make(
            "fragmented.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=4", "-c:v", "libx264", "-preset", "veryfast", "-g",
                "25", "-c:a", "aac", "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-f", "mp4",
            ])
    }

    /// The first `share` of `path`'s bytes, written to `scratch`.
    static func cut(_ path: String, to share: Double, _ scratch: Scratch, name: String = "cut.mp4") throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        return try scratch.write(name, [UInt8](whole.prefix(Int(Double(whole.count) * share))))
    }

    /// Checks a salvaged remux of `cut` (cut from `whole`) against the oracle: the warning names, for each
    /// track, the samples the cut file declares (`declared`, by stream specifier) that ffprobe does not
    /// read of it; each track of `output` has the packets ffprobe reads of `cut`, decoding as `cut` does
    /// (`Lossless`), and the video frames kept are `whole`'s, in order: nothing invented.
    static func expectSalvaged(
        _ result: RemuxResult, whole: String, cut: String, output: String, declared: [String: Int],
        primingMayShow: Bool
    ) throws {
        let warning = try #require(result.warnings.first { $0.hasPrefix("truncated_input: ") }, "\(result.warnings)")
        for (spec, codec, index) in [("v:0", "h264", 0), ("a:0", "aac", 1)] {
            let readable = try Oracle.packetCount(cut, stream: spec)
            let stated = declared[spec] ?? -1
            #expect(readable > 0 && readable < stated, "\(spec): \(readable) of \(stated)")
            #expect(result.tracks.first { $0.inputIndex == index }?.packets == readable)
            #expect(try Oracle.packetCount(output, stream: spec) == readable)
            #expect(
                warning.contains("track \(index) (\(codec)): \(stated - readable) of its \(stated) samples ("),
                "\(warning)")
        }
        #expect(
            try Lossless.problems(input: cut, output: output, primingMayShow: primingMayShow, hiddenMayShow: true)
                == [])
        let kept = try Oracle.frameHashes(cut, stream: "v:0")
        #expect(Self.isSubsequence(kept, of: try Oracle.frameHashes(whole, stream: "v:0")))
        let audio = try Oracle.decodeAudio(cut, stream: "a:0")
        let wholeAudio = try Oracle.decodeAudio(whole, stream: "a:0")
        #expect(!audio.isEmpty && wholeAudio.starts(with: audio))
        let duration = Double(try Oracle.format(output)["duration"] as? String ?? "") ?? -1
        let stated = warning.split(separator: "the output lasts ").last.flatMap { Double($0.dropLast(2)) } ?? -2
        #expect(abs(stated - duration) < 0.1, "\(warning) against \(duration)")
    }

    /// Top-level boxes of `path`: (type, offset, size).
    static func topLevelBoxes(_ path: String) throws -> [(type: String, offset: Int, size: Int)] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var boxes: [(String, Int, Int)] = []
        var at = 0
        while at + 8 <= bytes.count {
            let size = Int(readBigEndian(bytes, at))
            guard size >= 8 else { break }
            boxes.append((String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), at, size))
            at += size
        }
        return boxes
    }

    /// Packets of stream `spec` of `path` that start before byte `end` (ffprobe's `pos`).
    static func packets(of path: String, stream spec: String, before end: Int) throws -> Int {
        let output = try Command.run(
            "ffprobe", ["-v", "error", "-select_streams", spec, "-show_entries", "packet=pos", "-of", "csv=p=0", path])
        return output.text.split(separator: "\n").filter { (Int($0) ?? .max) < end }.count
    }

    static func isSubsequence(_ part: [String], of whole: [String]) -> Bool {
        var rest = whole[...]
        for item in part {
            guard let at = rest.firstIndex(of: item) else { return false }
            rest = rest[(at + 1)...]
        }
        return true
    }

    @Test(arguments: [ContainerFormat.mp4, .mkv])
    func aRecordingCutShortKeepsWhatWasRecorded(_ format: ContainerFormat) throws {
        let scratch = try Scratch("cutshort")
        let whole = try Self.faststartMP4()
        let cut = try Self.cut(whole, to: 0.6, scratch)
        let (output, result) = try remux(cut, to: format, in: scratch)
        // In the file's order: the chunks the `moov` places past the end, then the `mdat` the cut shortened.
        let first = result.warnings.first ?? ""
        #expect(first.hasPrefix("truncated_input: chunk ") && first.contains("; the 'mdat' box at byte"), "\(first)")
        let declared = [
            "v:0": try Oracle.packetCount(whole, stream: "v:0"), "a:0": try Oracle.packetCount(whole, stream: "a:0"),
        ]
        try Self.expectSalvaged(
            result, whole: whole, cut: cut, output: output, declared: declared, primingMayShow: format == .mkv)
        let refused = #expect(throws: MediaError.self) {
            try remux(cut, to: format, in: scratch, ["damaged": "refuse"])
        }
        #expect(refused?.code == .truncatedInput)
        #expect(refused?.message.contains("but the file has only") == true, "\(String(describing: refused))")
    }

    /// Cut inside the media of its third fragment: the first two are whole, the third's run reaches past
    /// the end, and what it declares counts (the fragments after it are not in the file to declare anything).
    @Test func aFragmentedRecordingCutMidRunKeepsWhatItsFragmentsHold() throws {
        let scratch = try Scratch("cutfragment")
        let whole = try Self.fragmentedMP4()
        let media = try Self.topLevelBoxes(whole).filter { $0.type == "mdat" }
        #expect(media.count >= 4)
        let third = media[2]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = try scratch.write("cut.mp4", [UInt8](bytes.prefix(third.offset + third.size / 2)))
        let (output, result) = try remux(cut, to: .mkv, in: scratch)
        #expect(result.warnings.first?.contains("the 'trun' box at byte") == true, "\(result.warnings)")
        let end = third.offset + third.size
        let declared = [
            "v:0": try Self.packets(of: whole, stream: "v:0", before: end),
            "a:0": try Self.packets(of: whole, stream: "a:0", before: end),
        ]
        try Self.expectSalvaged(
            result, whole: whole, cut: cut, output: output, declared: declared, primingMayShow: true)
    }

    /// Every kind that reads MP4 salvages by default; `damaged=refuse` gives the old refusal.
    @Test func everyKindSalvagesOrRefusesAsAsked() throws {
        let scratch = try Scratch("kinds")
        let whole = try Self.faststartMP4()
        let cut = try Self.cut(whole, to: 0.6, scratch)
        let readableAudio = try Oracle.packetCount(cut, stream: "a:0")
        let demux = try DemuxJob(input: cut, outputDirectory: scratch.file("demux")).run(JobContext())
        #expect(demux.warnings.first?.hasPrefix("truncated_input: chunk ") == true, "\(demux.warnings)")
        #expect(try Oracle.packetCount(scratch.file("demux/audio.aac"), stream: "a:0") == readableAudio)
        let decode = try DecodeJob(
            input: cut, output: scratch.file("output.wav"), options: try .init(parsing: ["sample_format": "f32le"])
        ).run(JobContext())
        #expect(decode.warnings.first?.hasPrefix("truncated_input: ") == true, "\(decode.warnings)")
        #expect(
            try Oracle.decodeAudio(scratch.file("output.wav"), stream: "a:0")
                == Oracle.decodeAudio(cut, stream: "a:0"))
        let waveform = try WaveformJob(input: cut, outputDirectory: scratch.file("waveform"), options: .init())
            .run(JobContext())
        #expect(waveform.warnings.first?.hasPrefix("truncated_input: ") == true, "\(waveform.warnings)")
        let info = try ProbeJob(input: cut).run()
        #expect(info.warnings?.first?.contains("; the 'mdat' box at byte") == true)
        let refuse = ["damaged": "refuse"]
        let refusals: [(String, () throws -> Void)] = [
            (
                "demux",
                {
                    _ = try DemuxJob(input: cut, outputDirectory: scratch.file("d2"), damaged: .refuse).run(
                        JobContext())
                }
            ),
            (
                "decode",
                {
                    _ = try DecodeJob(input: cut, output: scratch.file("o2.wav"), options: try .init(parsing: refuse))
                        .run(JobContext())
                }
            ),
            (
                "waveform",
                {
                    _ = try WaveformJob(
                        input: cut, outputDirectory: scratch.file("w2"), options: try .init(parsing: refuse)
                    )
                    .run(JobContext())
                }
            ),
            (
                "package",
                {
                    _ = try PackageJob(
                        input: cut, primaryOutput: scratch.file("p2/master.m3u8"), options: try .init(parsing: refuse)
                    )
                    .run(JobContext())
                }
            ),
        ]
        for (kind, run) in refusals {
            let error = #expect(throws: MediaError.self, "\(kind)") { try run() }
            #expect(error?.code == .truncatedInput, "\(kind): \(String(describing: error))")
        }
    }

    /// A file whose samples all lie past its end has nothing to salvage: every kind fails, saying so.
    @Test func mp4WithEverySamplePastTheEndFailsEveryKind() throws {
        let scratch = try Scratch("pasteof")
        let original = try Fixtures.h264AacMP4()
        let size = UInt32(try FileManager.default.attributesOfItem(atPath: original)[.size] as! Int)
        let input = try scratch.write(
            "input.mp4", try Self.shiftingChunkOffsets(of: original, by: size) { _, _ in true })
        let failures: [(String, () throws -> Void)] = [
            ("demux", { _ = try DemuxJob(input: input, outputDirectory: scratch.file("demux")).run(JobContext()) }),
            ("remux", { _ = try remux(input, to: .mkv, in: scratch) }),
            (
                "decode",
                {
                    _ = try DecodeJob(input: input, output: scratch.file("output.wav"), options: .init()).run(
                        JobContext())
                }
            ),
        ]
        for (kind, run) in failures {
            let error = #expect(throws: MediaError.self, "\(kind)") { try run() }
            #expect(error?.code == .truncatedInput, "\(kind): \(String(describing: error))")
            #expect(
                error?.message.hasPrefix("nothing of the input could be read: chunk 1 of track 0 declares bytes")
                    == true,
                "\(kind): \(String(describing: error))")
        }
        // Probe describes it, and says what is missing.
        let info = try ProbeJob(input: input).run()
        #expect(info.tracks.count == 2)
        #expect(info.warnings?.first?.contains("but the file has only") == true, "\(String(describing: info.warnings))")
    }

    /// Only each track's last chunk is moved: the rest is demuxed, and the warning says what was not.
    @Test func mp4WithTheLastChunkPastTheEnd() throws {
        let scratch = try Scratch("lastchunk")
        let whole = try Fixtures.h264AacMP4()
        let input = try scratch.write(
            "input.mp4",
            try Self.shiftingChunkOffsets(of: whole, by: 1 << 30) { index, count in index == count - 1 })
        let result = try DemuxJob(input: input, outputDirectory: scratch.file("demux")).run(JobContext())
        let warning = try #require(result.warnings.first)
        #expect(warning.hasPrefix("truncated_input: chunk "), "\(warning)")
        #expect(warning.contains("of track 0 declares bytes 1073"), "\(warning)")
        let readable = try Oracle.packetCount(input, stream: "v:0")
        let declared = try Oracle.packetCount(whole, stream: "v:0")
        #expect(warning.contains("track 0 (h264): \(declared - readable) of its \(declared) samples"), "\(warning)")
        let error = #expect(throws: MediaError.self) {
            try DemuxJob(input: input, outputDirectory: scratch.file("demux2"), damaged: .refuse).run(JobContext())
        }
        #expect(error?.code == .truncatedInput)
        #expect(error?.message.contains("of track 0 declares bytes 1073") == true, "\(String(describing: error))")
    }
}
