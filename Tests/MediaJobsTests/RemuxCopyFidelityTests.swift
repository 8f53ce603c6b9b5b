import CFFmpeg
import Foundation
import MediaCore
@testable import MediaJobs
import Synchronization
import TestSupport
import Testing

/// Nothing is lost in a copy: every sample of every copied track arrives with what a decoder needs to
/// read it as the source reads (the FourCC that gives ProRes its bit depth), a track of chapter
/// pictures keeps every picture, and stream copy opens no decoder the input policy leaves out.
@Suite struct RemuxCopyFidelityTests {
    /// 0.2 s of 64x48 ProRes 4444 with alpha (`ap4h`), 10-bit input that the profile stores as 12-bit.
    static func proRes4444() throws -> String {
        try Fixtures.make(
            "prores4444.mov",
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.2", "-c:v", "prores_ks", "-profile:v", "4",
                "-pix_fmt", "yuva444p10le", "-f", "mov",
            ])
    }

    /// 3 s of AAC with a QuickTime chapter track of three 160x120 JPEG pictures, one a second (an enhanced
    /// podcast): a MOV of AAC and MJPEG whose audio `trak` gets a `tref` box naming the picture track as
    /// its chapters (`chap`). The `moov` is at the end, so no chunk offset moves.
    static func chapterPictures() throws -> String {
        let plain = try Fixtures.make(
            "pictures.mov",
            [
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3", "-f", "lavfi", "-i",
                "testsrc2=size=160x120:rate=1:duration=3", "-map", "0:a", "-map", "1:v", "-c:a", "aac", "-c:v",
                "mjpeg", "-f", "mov",
            ])
        let path = plain + ".podcast.m4a"
        if !FileManager.default.fileExists(atPath: path) {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
            try Self.addChapterReference(to: &bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        return path
    }

    /// Inserts `tref`/`chap` into the sound track's `trak` (after its `tkhd`), naming the video track.
    static func addChapterReference(to bytes: inout [UInt8]) throws {
        func size(_ at: Int) -> Int { Int(bytes[at..<at + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }) }
        func type(_ at: Int) -> String { String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) }
        func children(_ start: Int, _ end: Int) -> [Int] {
            var found: [Int] = []
            var at = start
            while at + 8 <= end {
                found.append(at)
                at += size(at)
            }
            return found
        }
        let movie = try #require(children(0, bytes.count).first { type($0) == "moov" })
        let tracks = children(movie + 8, movie + size(movie)).filter { type($0) == "trak" }
        func handler(_ trak: Int) -> String {
            let body = Array(bytes[trak..<trak + size(trak)])
            let at = (0..<body.count - 4).first { String(decoding: body[$0..<$0 + 4], as: UTF8.self) == "hdlr" }!
            return String(decoding: body[at + 12..<at + 16], as: UTF8.self)
        }
        let sound = try #require(tracks.first { handler($0) == "soun" })
        let picture = try #require(tracks.first { handler($0) == "vide" })
        // tkhd version 0: track ID after version/flags, creation and modification times.
        let pictureID = UInt8(bytes[picture + 8 + 8 + 12 + 3])
        let reference: [UInt8] =
            [0, 0, 0, 20] + Array("tref".utf8) + [0, 0, 0, 12] + Array("chap".utf8) + [
                0, 0, 0, pictureID,
            ]
        let header = sound + 8
        bytes.insert(contentsOf: reference, at: header + size(header))
        for at in [movie, sound] {
            let grown = UInt32(size(at) + reference.count)
            bytes.replaceSubrange(at..<at + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: grown >> (24 - 8 * $0)) })
        }
    }

    @Test func proRes4444KeepsItsFourCCAndBitDepthInMatroska() throws {
        let scratch = try Scratch("prores")
        let input = try Self.proRes4444()
        let (output, _) = try remux(input, to: .mkv, in: scratch)
        let source = try #require(try Oracle.streams(input).first)
        let copied = try #require(try Oracle.streams(output).first)
        #expect(copied["codec_tag_string"] as? String == "ap4h")
        #expect(copied["pix_fmt"] as? String == source["pix_fmt"] as? String)
        #expect(source["pix_fmt"] as? String == "yuva444p12le")
        #expect(try Oracle.decodedHashes(output) == Oracle.decodedHashes(input))
    }

    @Test(arguments: [ContainerFormat.mp4, .mov, .mkv])
    func chapterPicturesKeepEveryPicture(_ format: ContainerFormat) throws {
        let scratch = try Scratch("pictures")
        let input = try Self.chapterPictures()
        let disposition = try #require(try Oracle.streams(input).last?["disposition"] as? [String: Int])
        #expect(disposition["timed_thumbnails"] == 1)
        let (output, result) = try remux(input, to: format, in: scratch)
        #expect(result.tracks.map(\.codec) == ["aac", "mjpeg"])
        // libav reads the first picture twice (as the cover it makes of it, then as a sample), the CLI
        // copies both; every picture of the track is there, in order.
        let pictures = try Oracle.frameHashes(input, stream: "v:0")
        #expect(pictures.count == 4 && Set(pictures).count == 3)
        #expect(try Oracle.frameHashes(output, stream: "v:0") == pictures)
        #expect(
            try Lossless.problems(input: input, output: output, primingMayShow: format == .mkv, hiddenMayShow: true)
                == [])
    }

    @Test func aTargetWithoutPictureTracksSaysWhichKeepThem() throws {
        let scratch = try Scratch("pictures")
        let (output, result) = try remux(try Self.chapterPictures(), to: .m4a, in: scratch)
        #expect(
            result.warnings.contains(
                "track 1 (mjpeg) holds 3 chapter pictures; m4a keeps only the first, as cover art; formats that keep "
                    + "every one: mp4, mov, mkv, asf"), "\(result.warnings)")
        #expect(try Oracle.packetCount(output, stream: "v:0") == 1)
        let (_, ts) = try remux(try Self.chapterPictures(), to: .ts, in: scratch)
        #expect(
            ts.warnings.contains {
                $0.hasPrefix("track 1 (mjpeg) is a track of chapter pictures, which ts cannot store")
                    && $0.hasSuffix("formats that can: mp4, mov, mkv, asf")
            }, "\(ts.warnings)")
    }

    /// libav's probe of stream parameters tries the decoder of every track; one the stream-copy policy
    /// leaves out (ProRes, MJPEG) is refused, as it should be, but that is no error of the job's.
    @Test func streamCopyLogsNoDecoderOutsideThePolicy() throws {
        let scratch = try Scratch("whitelist")
        let lines = Mutex<[String]>([])
        LibavLog.configure(level: AV_LOG_WARNING) { _, line in lines.withLock { $0.append(line) } }
        defer { LibavLog.configure(sink: nil) }
        _ = try remux(try Self.proRes4444(), to: .mkv, in: scratch)
        _ = try remux(try Self.chapterPictures(), to: .mp4, in: scratch)
        #expect(lines.withLock { $0 }.filter { $0.contains("whitelist") } == [])
        #expect(LibavLog.takeLastError()?.contains("whitelist") != true)
    }
}
