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
        #expect(InputSniffer.sniff(head: Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)) == .unrecognized("an HLS playlist"))
        #expect(InputSniffer.sniff(head: Array("ffconcat version 1.0\n".utf8)) == .unrecognized("an ffconcat list"))
        #expect(InputSniffer.sniff(head: Array("hello world\n".utf8)) == .unrecognized("text"))
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

    @Test func skipsID3BeforeADTS() {
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 4] + [1, 2, 3, 4]
        #expect(InputSniffer.sniff(head: id3 + [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC]) == .container(.adts))
    }
}
