import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// What a libav user must set by hand that the ffmpeg CLI sets for its users, and the muxer defects
/// mediad mends or reports: the MPEG-TS buffer model, `hvc1`, the fragment index, FLV data rates, and
/// the warnings for what libav 5.1 loses in ASF and MPEG-TS.
@Suite struct MuxerDefaultsTests {
    static let thirty = FrameRate(numerator: 30, denominator: 1)

    /// With `max_delay` set as the CLI sets it, MPEG-TS packs audio frames into fewer PES and sends each
    /// PES ahead of its decoding time: no larger than `ffmpeg -c copy`'s file, and no `###` from tsreport.
    @Test func packsMPEGTSLikeTheCLI() throws {
        let scratch = try Scratch("defaults-ts")
        let input = try Fixtures.h264AacMP4()
        let (output, _) = try remux(input, to: .ts, in: scratch)
        let reference = scratch.file("ffmpeg.ts")
        try Command.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", reference])
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        let referenceSize = try FileManager.default.attributesOfItem(atPath: reference)[.size] as? Int ?? 0
        #expect(size <= referenceSize, "\(size) bytes against ffmpeg's \(referenceSize)")
        #expect(try Parsers.tsreportProblems(output).isEmpty)
        let frames = try Oracle.packets(input, stream: "a:0").count
        let audioPES = try Self.pesCount(output, pid: 0x101)
        #expect(audioPES * 2 <= frames, "\(audioPES) audio PES for \(frames) AAC frames")
    }

    /// Transport packets of `pid` that start a PES (payload_unit_start_indicator set).
    static func pesCount(_ path: String, pid: Int) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return stride(from: 0, to: bytes.count - 187, by: 188).filter { at in
            bytes[at] == 0x47 && bytes[at + 1] & 0x40 != 0
                && (Int(bytes[at + 1] & 0x1F) << 8 | Int(bytes[at + 2])) == pid
        }.count
    }

    /// H.265 from Annex-B (mux) and from MPEG-TS (remux) is tagged `hvc1`, with every parameter set in a
    /// complete array of the `hvcC` box.
    @Test func tagsH265AsHVC1() throws {
        let scratch = try Scratch("defaults-hvc1")
        let (_, muxed) = try MuxChecks.mux(
            audio: nil, video: try Fixtures.hevcAnnexB(), format: .mp4, fps: Self.thirty, in: scratch)
        let transport = scratch.file("hevc.ts")
        try Command.run("ffmpeg", ["-v", "error", "-i", try Fixtures.hevcMP4(), "-c", "copy", transport])
        let (remuxed, _) = try remux(transport, to: .mov, in: scratch)
        for output in [muxed, remuxed] {
            #expect(try Oracle.streams(output).first?["codec_tag_string"] as? String == "hvc1")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            let hvcC = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)] == Array("hvcC".utf8)[...] })
            var at = hvcC + 4 + 22
            var complete: [UInt8: Bool] = [:]
            for _ in 0..<Int(bytes[at]) {
                let type = bytes[at + 1] & 0x3F
                complete[type] = bytes[at + 1] & 0x80 != 0
                let count = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                at += 3
                for _ in 0..<count { at += 2 + (Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])) }
            }
            #expect(complete == [32: true, 33: true, 34: true], "\(output): \(complete)")
        }
    }

    /// Fragmented MP4 has a global `sidx` after the `moov`, and `mehd` states the whole duration; the
    /// fragment index (`mfra`) still points at every `moof`.
    @Test func indexesFragments() throws {
        let scratch = try Scratch("defaults-sidx")
        let (output, _) = try remux(try Fixtures.h264AacMP4(), to: .mp4, in: scratch, ["fragmented": "true"])
        let boxes = try Oracle.topLevelBoxes(output)
        let sidx = try #require(boxes.firstIndex(of: "sidx"))
        #expect(try #require(boxes.firstIndex(of: "moov")) < sidx)
        #expect(sidx < (try #require(boxes.firstIndex(of: "moof"))))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let mehd = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)] == Array("mehd".utf8)[...] })
        let duration = bytes[(mehd + 8)..<(mehd + 16)].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        let mvhd = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)] == Array("mvhd".utf8)[...] })
        let field = mvhd + (bytes[mvhd + 4] == 1 ? 24 : 16)
        let timescale = bytes[field..<(field + 4)].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        #expect(
            (3.0...3.1).contains(Double(duration) / Double(timescale)),
            "mehd duration \(duration) in a movie timescale of \(timescale)")
        let seek = try Command.run(
            "ffprobe", ["-v", "error", "-use_mfra_for", "pts", "-read_intervals", "2%+0.5", "-show_packets", output])
        #expect(!seek.text.isEmpty)
        #expect(try Parsers.gstreamerProblems(output, streams: 2).isEmpty)
    }

    /// FLV's onMetaData states the real video and audio rates (flvmeta W80062 flags zero rates).
    @Test func declaresFLVDataRates() throws {
        let scratch = try Scratch("defaults-flv")
        let (_, output) = try MuxChecks.mux(
            audio: try Fixtures.adts(), video: try Fixtures.h264AnnexB(), format: .flv, fps: Self.thirty, in: scratch)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)).prefix(4096))
        func amfNumber(_ key: String) throws -> Double {
            let name = Array(key.utf8)
            let at = try #require(bytes.indices.first { bytes[$0...].starts(with: name) }) + name.count
            #expect(bytes[at] == 0, "\(key) is not an AMF number")
            return Double(bitPattern: bytes[(at + 1)...(at + 8)].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) })
        }
        // The fixtures: about 300 kb/s of video at 30 fps, 96 kb/s of AAC; FLV counts in units of 1024 b/s.
        #expect((100...2000).contains(try amfNumber("videodatarate")))
        #expect((60...120).contains(try amfNumber("audiodatarate")))
        #expect(try amfNumber("framerate") == 30)
    }

    /// ASF keeps no B-frame order, and MPEG-TS no clock after a shorter video: both are warned of.
    @Test func warnsOfWhatLibavLoses() throws {
        let scratch = try Scratch("defaults-warnings")
        let (asf, written) = try remux(try Fixtures.h264AacMP4(), to: .asf, in: scratch)
        #expect(written.warnings.contains { $0.contains("track 0: ASF") && $0.contains("decoding order") })
        let (_, reread) = try remux(asf, to: .mp4, in: scratch)
        #expect(reread.warnings.contains { $0.contains("reads no presentation times from ASF") })
        let (muxed, _) = try MuxChecks.mux(
            audio: nil, video: try Fixtures.h264AnnexB(), format: .asf, fps: Self.thirty, in: scratch)
        #expect(muxed.warnings.contains { $0.contains("the video: ASF") })
        let short = scratch.file("short.mp4")
        try Command.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-f", "lavfi", "-i",
                "sine=sample_rate=48000:duration=3", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", short,
            ])
        let (_, clock) = try remux(short, to: .ts, in: scratch)
        #expect(clock.warnings.contains { $0.contains("no PCR") })
        let (_, mp4) = try remux(short, to: .mkv, in: scratch)
        #expect(!mp4.warnings.contains { $0.contains("PCR") })
    }
}
