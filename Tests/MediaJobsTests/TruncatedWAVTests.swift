import Foundation
import MediaCore
@testable import MediaJobs
import TestSupport
import Testing

/// WAV headers that promise more samples than the file holds: encode fails them with `truncated_input`,
/// remux salvages what is there and says what was lost; the sizes streaming writers leave "unknown" (0,
/// 0xFFFFFFFF, and the 0x7FFFFFFF and 0x7FFFF000 of arecord and SoX) still encode every sample there is.
@Suite struct TruncatedWAVTests {
    /// `Fixtures.wav()`: 2 s of 44.1 kHz stereo s16, 88,200 sample frames.
    static let fixtureSamples: Int64 = 88_200

    static func fixture() throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.wav()))) }

    /// Offset of the `data` chunk's size field.
    static func dataSizeOffset(_ bytes: [UInt8]) throws -> Int {
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[(offset + 4)..<(offset + 8)].reversed().reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
            if Array(bytes[offset..<(offset + 4)]) == Array("data".utf8) { return offset + 4 }
            offset += 8 + size + size % 2
        }
        throw MediaError(.invalidInput, "the fixture has no data chunk")
    }

    static func setting(_ value: UInt32, at offset: Int, in bytes: [UInt8]) -> [UInt8] {
        var patched = bytes
        for index in 0..<4 { patched[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        return patched
    }

    static func encode(_ bytes: [UInt8], _ scratch: Scratch, format: String = "m4a") throws -> EncodeResult {
        let input = try scratch.write("input.wav", bytes)
        return try EncodeJob(
            input: input, output: scratch.file("output.\(format)"), options: try .init(parsing: ["format": format])
        ).run(JobContext())
    }

    @Test func wavCutInHalfIsTruncated() throws {
        let scratch = try Scratch("wavhalf")
        let bytes = try Self.fixture()
        let dataStart = try Self.dataSizeOffset(bytes) + 4
        let half = Array(bytes.prefix(dataStart + (bytes.count - dataStart) / 2))
        let error = #expect(throws: MediaError.self) { try Self.encode(half, scratch) }
        #expect(error?.code == .truncatedInput)
        #expect(
            error?.message.contains("the WAV 'data' chunk declares 352800 bytes, but the file has only 176400") == true,
            "\(String(describing: error))")
        #expect(try scratch.listing() == ["input.wav"])
    }

    @Test func wavClaimingFourGigabytesOverOneKilobyteIsTruncated() throws {
        let scratch = try Scratch("wav4g")
        let bytes = try Self.fixture()
        let sizeOffset = try Self.dataSizeOffset(bytes)
        let small = Self.setting(0xFFFF_FF00, at: sizeOffset, in: Array(bytes.prefix(sizeOffset + 4 + 1024)))
        let error = #expect(throws: MediaError.self) { try Self.encode(small, scratch) }
        #expect(error?.code == .truncatedInput)
        #expect(error?.message.contains("declares 4294967040 bytes, but the file has only 1024") == true)
    }

    /// Remux salvages a cut WAV by default, as the ffmpeg CLI copies it: every whole sample there is, and
    /// a `truncated_input` warning with the seconds lost; `damaged=refuse` refuses it, and probe describes
    /// it with the same finding. Encode, which takes no `damaged` option, refuses it (above).
    @Test func aCutWAVIsSalvagedByRemuxAndDescribedByProbe() throws {
        let scratch = try Scratch("wavkinds")
        let bytes = try Self.fixture()
        let input = try scratch.write("input.wav", Array(bytes.prefix(bytes.count - 1000)))
        let (output, result) = try remux(input, to: .mkv, in: scratch)
        let warning = try #require(result.warnings.first)
        #expect(
            warning.hasPrefix(
                "truncated_input: the WAV 'data' chunk declares 352800 bytes, but the file has only 351800 after its "
                    + "header (its last 0.006 s of 2.000 s); the output lasts 1.99"), "\(warning)")
        let kept = try Oracle.decodeAudio(output, stream: "a:0")
        #expect(kept == (try Oracle.decodeAudio(input, stream: "a:0")))
        #expect((try Oracle.decodeAudio(try Fixtures.wav(), stream: "a:0")).starts(with: kept))
        #expect(kept.count == 351_800 / 2)
        let refused = #expect(throws: MediaError.self) {
            try remux(input, to: .mkv, in: scratch, ["damaged": "refuse"])
        }
        #expect(refused?.code == .truncatedInput)
        #expect(
            try ProbeJob(input: input).run().warnings?.first?.hasPrefix("truncated_input: the WAV 'data' chunk") == true
        )
    }

    @Test(arguments: [0, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x7FFF_F000] as [UInt32])
    func streamingSizesEncodeEverySample(_ unknown: UInt32) throws {
        let scratch = try Scratch("wavstream")
        let bytes = try Self.fixture()
        let riffUnknown = Self.setting(unknown, at: 4, in: bytes)
        let patched = Self.setting(unknown, at: try Self.dataSizeOffset(bytes), in: riffUnknown)
        let result = try Self.encode(patched, scratch, format: "wav")
        #expect(result.samples == Self.fixtureSamples)
        #expect(result.warnings.isEmpty)
    }
}
