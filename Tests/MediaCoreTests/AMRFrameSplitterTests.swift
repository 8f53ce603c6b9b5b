import MediaCore
import Testing

/// Packed AMR-NB samples split into their frames, whatever follows the last whole one.
@Suite struct AMRFrameSplitterTests {
    /// A 12.2 kbit/s frame (frame type 7): its header byte and 31 bytes of speech.
    static let frame: [UInt8] = [0x3C] + [UInt8](repeating: 0x55, count: 31)

    static func split(_ bytes: [UInt8]) -> [Range<Int>]? {
        bytes.withUnsafeBufferPointer { AMRFrameSplitter.frames(in: $0) }
    }

    @Test func aSampleOfFiveFramesGivesFive() {
        let sample = Array(Array(repeating: Self.frame, count: 5).joined())
        #expect(Self.split(sample) == (0..<5).map { $0 * 32..<($0 + 1) * 32 })
    }

    /// A byte of padding (or a frame the end of a damaged file cuts) after the last whole frame stays
    /// with it: the sample used to go out whole, and libav's decoder read only its first frame.
    @Test func bytesAfterTheLastWholeFrameStayWithIt() {
        let sample: [UInt8] = Array(repeating: Self.frame, count: 5).joined() + [0]
        let ranges = Self.split(sample)
        #expect(ranges?.count == 5)
        #expect(ranges?.last == 128..<161)
        #expect(Self.split(Self.frame + Array(Self.frame.prefix(10))) == [0..<42])
    }

    @Test func aSampleWithoutOneWholeFrameIsNotSplit() {
        #expect(Self.split(Array(Self.frame.prefix(20))) == nil)
    }
}
