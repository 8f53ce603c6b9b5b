import Foundation
import MediaCore
import TestSupport
import Testing

/// Hostile box structures that used to crash the checker or reach libav's allocators: each must fail
/// with its code and a message that says what is wrong, before libav reads the file.
@Suite struct ISOBoxLimitsTests {
    typealias B = ISOBoxBytes

    static func validationError(_ bytes: [UInt8]) throws -> MediaError? {
        let scratch = try Scratch("isolimits")
        let path = try scratch.write("input.mp4", bytes)
        return #expect(throws: MediaError.self) { try ISOBoxValidator.validate(path: path) }
    }

    /// 200,000 nested `trak` boxes (1.6 MB) used to overflow the stack of the recursive walk.
    @Test func deepNestingIsRefusedWithoutRecursion() throws {
        let depth = 200_000
        var nested: [UInt8] = []
        nested.reserveCapacity(depth * 8)
        for level in 0..<depth { nested += B.bigEndian(UInt32(8 * (depth - level))) + Array("trak".utf8) }
        let started = ContinuousClock.now
        let error = try Self.validationError(B.movie(nested))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("nested more than 32 levels deep") == true, "\(String(describing: error))")
    }

    /// The stream limit (libav's own, 1000) used to go unseen: libav failed first, allocating for 10,000
    /// tracks.
    @Test func moreThan1000TracksAreRefused() throws {
        let tracks = (0..<10_000).flatMap { _ in B.box("trak") }
        let error = try Self.validationError(B.movie(tracks))
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("more than 1000 tracks") == true, "\(String(describing: error))")
    }

    /// A table box whose entry count is 2^32-1 but whose body holds none of the entries.
    static let oversizedTables: [(String, [UInt8])] = [
        ("stts", B.fullBox("stts", B.bigEndian(.max))),
        ("ctts", B.fullBox("ctts", B.bigEndian(.max))),
        ("stsc", B.fullBox("stsc", B.bigEndian(.max))),
        ("stsz", B.fullBox("stsz", B.bigEndian(0) + B.bigEndian(.max))),
        ("stz2", B.fullBox("stz2", [0, 0, 0, 16] + B.bigEndian(.max))),
        ("stco", B.fullBox("stco", B.bigEndian(.max))),
        ("co64", B.fullBox("co64", B.bigEndian(.max))),
        ("stss", B.fullBox("stss", B.bigEndian(.max))),
        ("stps", B.fullBox("stps", B.bigEndian(.max))),
        ("elst", B.fullBox("elst", version: 1, B.bigEndian(.max))),
        ("sbgp", B.fullBox("sbgp", Array("roll".utf8) + B.bigEndian(.max))),
        ("dref", B.fullBox("dref", B.bigEndian(.max))),
    ]

    @Test(arguments: oversizedTables.map(\.0))
    func tableCountsMustFitTheirBox(_ type: String) throws {
        let table = Self.oversizedTables.first { $0.0 == type }!.1
        let error = try Self.validationError(B.movie(B.track(table)))
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message.contains("'\(type)' box declares 4294967295 entries") == true, "\(String(describing: error))"
        )
    }

    /// A fragment's `trun` with 2^32-1 samples of 4-byte sizes in a 20-byte box.
    @Test func fragmentSampleCountMustFitItsBox() throws {
        let run = B.fullBox("trun", flags: 0x200, B.bigEndian(.max))
        let fragment = B.box("moof", B.box("traf", B.fullBox("tfhd", flags: 0x2_0000, B.bigEndian(1)) + run))
        let error = try Self.validationError(B.movie([]) + fragment)
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message.contains("'trun' box declares 4294967295 entries") == true, "\(String(describing: error))")
    }

    /// Chunk offsets past the end: the box structure is sound but the samples are not in the file.
    @Test func chunkPastTheEndIsTruncated() throws {
        let tables = B.sampleToChunk(samplesPerChunk: 2) + B.constantSampleSizes(100, count: 2) + B.chunkOffsets([5000])
        let error = try Self.validationError(
            B.movie(B.track(tables)) + B.box("mdat", [UInt8](repeating: 0, count: 200)))
        #expect(error?.code == .truncatedInput)
        #expect(
            error?.message.contains("chunk 1 of track 0 declares bytes 5000 to 5200, but the file has only") == true,
            "\(String(describing: error))")
    }

    /// A chunk that starts in the file but whose samples (2^32-1 of two bytes) run far past its end.
    @Test func chunkRunningPastTheEndIsTruncated() throws {
        let tables =
            B.sampleToChunk(samplesPerChunk: .max) + B.constantSampleSizes(2, count: .max) + B.chunkOffsets([0])
        let error = try Self.validationError(B.movie(B.track(tables)))
        #expect(error?.code == .truncatedInput)
        #expect(error?.message.contains("declares bytes 0 to 8589934590") == true, "\(String(describing: error))")
    }

    /// A fragment whose samples lie past the end of the file.
    @Test func fragmentDataPastTheEndIsTruncated() throws {
        let run = B.fullBox(
            "trun", flags: 0x201, B.bigEndian(2) + B.bigEndian(1_000_000) + B.bigEndian(50) + B.bigEndian(50))
        let fragment = B.box("moof", B.box("traf", B.fullBox("tfhd", flags: 0x2_0000, B.bigEndian(1)) + run))
        let error = try Self.validationError(B.movie([]) + fragment + B.box("mdat", [UInt8](repeating: 0, count: 100)))
        #expect(error?.code == .truncatedInput)
        #expect(
            error?.message.contains("declares sample data at bytes 1000132 to 1000232, but the file has only 300")
                == true, "\(String(describing: error))")
    }

    /// A compressed movie header (QuickTime's `cmov`) would hide its tables from the checks: refused.
    @Test func compressedMovieHeaderIsRefused() throws {
        let error = try Self.validationError(B.movie(B.box("cmov", B.box("dcom", Array("zlib".utf8)))))
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("'cmov'") == true, "\(String(describing: error))")
    }

    /// A well-formed table passes: the checks count what is there, not what is plausible.
    @Test func consistentTablesPass() throws {
        let tables = B.sampleToChunk(samplesPerChunk: 2) + B.constantSampleSizes(100, count: 2) + B.chunkOffsets([0])
        let scratch = try Scratch("isolimitsok")
        let path = try scratch.write(
            "input.mp4", B.movie(B.track(tables)) + B.box("mdat", [UInt8](repeating: 0, count: 200)))
        try ISOBoxValidator.validate(path: path)
    }
}
