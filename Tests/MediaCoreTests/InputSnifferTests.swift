import Foundation
import MediaCore
import Testing

@Suite struct InputSnifferTests {
    @Test func recognisesContainersByMagic() {
        #expect(InputSniffer.sniff(head: [0, 0, 0, 0x20] + Array("ftypisom".utf8)) == .container(.mp4))
        #expect(InputSniffer.sniff(head: [0x1A, 0x45, 0xDF, 0xA3, 0x01]) == .container(.matroska))
        #expect(InputSniffer.sniff(head: Array("FLV".utf8) + [1, 5]) == .container(.flv))
        #expect(InputSniffer.sniff(head: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)) == .container(.wav))
        #expect(InputSniffer.sniff(head: [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC]) == .container(.adts))
    }

    @Test func refusesLookalikes() {
        #expect(InputSniffer.sniff(head: []) == .empty)
        #expect(InputSniffer.sniff(head: Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)) == .foreign("an HLS playlist"))
        #expect(InputSniffer.sniff(head: Array("ffconcat version 1.0\n".utf8)) == .foreign("an ffconcat list"))
        #expect(InputSniffer.sniff(head: Array("hello world\n".utf8)) == .foreign("text"))
        // An MP3 frame header (layer III) is not ADTS.
        #expect(InputSniffer.sniff(head: [0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0]) != .container(.adts))
    }

    @Test func tellsH264FromH265() {
        let h264: [UInt8] = [
            0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1F, 0, 0, 0, 1, 0x68, 0xEE, 0x3C, 0x80, 0, 0, 1, 0x65, 0x88,
        ]
        let hevc: [UInt8] = [0, 0, 0, 1, 0x40, 0x01, 0x0C, 0, 0, 0, 1, 0x42, 0x01, 0x01, 0, 0, 1, 0x44, 0x01, 0xC1]
        #expect(InputSniffer.sniff(head: h264) == .container(.h264))
        #expect(InputSniffer.sniff(head: hevc) == .container(.hevc))
    }

    /// Motion JPEG 2000 opens with JPEG 2000's signature box before its `ftyp`; raw MPEG-4 Part 2 video with
    /// a visual object sequence and, soon after, a video object layer. A JPEG 2000 still image is not the
    /// former, and an Annex-B stream's start codes are not the latter.
    @Test func recognisesMotionJPEG2000AndRawMPEG4Video() {
        let signature: [UInt8] = [0, 0, 0, 12] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
        let motion = signature + [0, 0, 0, 24] + Array("ftypmjp2".utf8) + [0, 0, 0, 0] + Array("mjp2mj2s".utf8)
        #expect(InputSniffer.sniff(head: motion) == .container(.mp4))
        let still = signature + [0, 0, 0, 20] + Array("ftypjp2 ".utf8) + [0, 0, 0, 0] + Array("jp2 ".utf8)
        #expect(InputSniffer.sniff(head: still) != .container(.mp4))
        let mpeg4: [UInt8] = [0, 0, 1, 0xB0, 1, 0, 0, 1, 0xB5, 0x89, 0x13, 0, 0, 1, 0, 0, 0, 1, 0x20, 0, 0xC4, 0x8D]
        #expect(InputSniffer.sniff(head: mpeg4) == .container(.mpeg4Video))
        #expect(InputSniffer.sniff(head: Array(mpeg4.prefix(12))) != .container(.mpeg4Video))
    }

    @Test func skipsID3BeforeADTS() {
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 4] + [1, 2, 3, 4]
        #expect(InputSniffer.sniff(head: id3 + [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC]) == .container(.adts))
    }

    /// Files people upload by mistake are named, so encode does not take them for raw PCM.
    @Test func namesWhatIsNotMedia() {
        func padded(_ head: [UInt8]) -> [UInt8] { head + [UInt8](repeating: 0x80, count: 600) }
        let riff = Array("RIFF".utf8) + [0x24, 0, 0, 0]
        var tar = [UInt8](repeating: 0x80, count: 600)
        tar.replaceSubrange(257..<262, with: Array("ustar".utf8))
        let bitmap: [UInt8] = Array("BM".utf8) + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0], "a JPEG image"), ([0x89] + Array("PNG\r\n".utf8) + [0x1A, 0x0A], "a PNG image"),
            (Array("GIF89a".utf8), "a GIF image"), (riff + Array("WEBPVP8 ".utf8), "a WebP image"),
            (riff + Array("AVI LIST".utf8), "an AVI file"), (Array("%PDF-1.7".utf8), "a PDF document"),
            ([0x50, 0x4B, 0x03, 0x04], "a ZIP archive (or an Office document)"),
            ([0x1F, 0x8B, 0x08, 0], "a gzip archive"),
            ([0xFD] + Array("7zXZ".utf8) + [0], "an xz archive"), ([0x7F] + Array("ELF".utf8), "an ELF executable"),
            (Array("OggS".utf8), "an Ogg file"), (Array("fLaC".utf8), "a FLAC file"),
            (Array("FORM".utf8) + [0, 0, 0, 0] + Array("AIFF".utf8), "an AIFF file"), (tar, "a tar archive"),
            (bitmap, "a BMP image"), ([0xEF, 0xBB, 0xBF] + Array("{}".utf8), "text"),
        ]
        for (head, name) in cases {
            #expect(InputSniffer.sniff(head: padded(head)) == .foreign(name), "\(name)")
        }
    }

    /// Audio samples — silence, a tone, noise — are not mistaken for any of those.
    @Test func samplesStayUnrecognized() {
        let silence = [UInt8](repeating: 0, count: 4096)
        let tone = (0..<2048).flatMap { index -> [UInt8] in
            let sample = Int16(8000 * sin(Double(index) * 0.05))
            return [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
        }
        var state: UInt64 = 7
        let noise = (0..<4096).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for head in [silence, tone, noise] { #expect(InputSniffer.sniff(head: head) == .unrecognized) }
    }
}
