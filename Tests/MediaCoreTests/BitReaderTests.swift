import MediaCore
import Testing

@Suite struct BitReaderTests {
    @Test func readsExpGolombCodes() throws {
        // 1 | 010 | 011 | 00100 | 00101 → ue: 0, 1, 2, 3; then se of code 4 = -2.
        var reader = BitReader(rbsp: [0b1010_0110, 0b0100_0010, 0b1000_0000])
        #expect(try reader.ue() == 0)
        #expect(try reader.ue() == 1)
        #expect(try reader.ue() == 2)
        #expect(try reader.ue() == 3)
        #expect(try reader.se() == -2)
    }

    @Test func removesEmulationPrevention() {
        #expect(BitReader.rbsp(fromNAL: [0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00]) == [0, 0, 1, 0, 0, 0])
    }

    @Test func failsPastTheEnd() {
        var reader = BitReader(rbsp: [0x00])
        #expect(throws: MediaError.self) { try reader.ue() }
    }
}
