import MediaCore
import TestSupport
import Testing

/// Box structures found by fuzzing: each must fail with its code, never trap.
@Suite struct ISOBoxValidatorTests {
    /// A box of `type` with a 32-bit size and `body`.
    static func box(_ type: String, _ body: [UInt8] = []) -> [UInt8] {
        bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    /// A box header with size 1 and the 64-bit `largeSize` after it.
    static func largeBox(_ type: String, _ largeSize: UInt64) -> [UInt8] {
        bigEndian(1) + Array(type.utf8) + bigEndian(UInt32(largeSize >> 32))
            + bigEndian(UInt32(largeSize & 0xFFFF_FFFF))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    static func validationError(_ bytes: [UInt8]) throws -> MediaError? {
        let scratch = try Scratch("isobox")
        let path = try scratch.write("input.mp4", bytes)
        return #expect(throws: MediaError.self) { try ISOBoxValidator.validate(path: path) }
    }

    /// A 64-bit box size near Int64.max after the first box used to overflow `offset + size`.
    @Test func hugeLargeSizeAfterTheFirstBoxIsTruncated() throws {
        let ftyp = Self.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])
        let error = try Self.validationError(
            ftyp + Self.largeBox("free", 0x7FFF_FFFF_FFFF_FFF0) + [UInt8](repeating: 0, count: 16))
        #expect(error?.code == .truncatedInput)
        #expect(error?.message.contains("'free' box at byte 16 claims 9223372036854775792 bytes") == true)
    }

    @Test func largeSizeThatIsNegativeAsInt64IsInvalid() throws {
        let error = try Self.validationError(Self.box("ftyp", Array("isom".utf8)) + Self.largeBox("mdat", UInt64.max))
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("impossible size") == true)
    }

    @Test func zeroTimescaleInMovieHeaderIsInvalid() throws {
        let movieHeader = Self.box("mvhd", [UInt8](repeating: 0, count: 100))
        let error = try Self.validationError(Self.box("ftyp", Array("isom".utf8)) + Self.box("moov", movieHeader))
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("timescale of 0") == true)
    }
}
