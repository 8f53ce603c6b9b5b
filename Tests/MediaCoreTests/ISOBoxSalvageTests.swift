import Foundation
import MediaCore
import TestSupport
import Testing

/// Under `damaged=salvage` the checker records what is cut or malformed, as the job's warnings will say
/// it, where libav still reads the file; what libav could not read either, or must not be given (an
/// allocation out of proportion with the file, nesting past the bound, a hidden movie header), is
/// refused all the same. Under `refuse` (`ISOBoxValidatorTests`, `ISOBoxLimitsTests`) each is thrown.
@Suite struct ISOBoxSalvageTests {
    typealias B = ISOBoxBytes

    static func inspect(_ bytes: [UInt8]) throws -> ISOBoxValidator.Inspection {
        let scratch = try Scratch("isosalvage")
        let path = try scratch.write("input.mp4", bytes)
        return try ISOBoxValidator.validate(path: path, damaged: .salvage)
    }

    static func refusal(_ bytes: [UInt8]) throws -> MediaError? {
        let scratch = try Scratch("isosalvage")
        let path = try scratch.write("input.mp4", bytes)
        return #expect(throws: MediaError.self) { try ISOBoxValidator.validate(path: path, damaged: .salvage) }
    }

    static let samples = B.sampleToChunk(samplesPerChunk: 2) + B.constantSampleSizes(100, count: 2)

    @Test func aSoundFileHasNoFinding() throws {
        let inspection = try Self.inspect(
            B.movie(B.track(Self.samples + B.chunkOffsets([120]))) + B.box("mdat", [UInt8](repeating: 0, count: 200)))
        #expect(inspection.damage.isEmpty)
    }

    @Test func aFileEndingInsideABoxHeaderIsTruncatedAfterWhatIsWhole() throws {
        let whole =
            B.movie(B.track(Self.samples + B.chunkOffsets([120]))) + B.box("mdat", [UInt8](repeating: 0, count: 200))
        let inspection = try Self.inspect(whole + [0, 0, 1])
        #expect(
            inspection.damage.findings == [
                .init(
                    code: .truncatedInput,
                    message: "the file ends inside a box header at byte \(whole.count) (its last 3 bytes)")
            ])
    }

    @Test func chunksAndMediaDataPastTheEndAreTruncated() throws {
        let movie = B.movie(B.track(Self.samples + B.chunkOffsets([120, 5000, 6000])))
        let inspection = try Self.inspect(movie + B.box("mdat", [UInt8](repeating: 0, count: 100)) + [])
        let messages = inspection.damage.findings.map(\.message)
        #expect(inspection.damage.findings.allSatisfy { $0.code == .truncatedInput })
        #expect(messages.count == 1, "\(messages)")
        #expect(
            messages.first?.hasPrefix("chunk 2 of track 0 declares bytes 5000 to 5200, but the file has only") == true,
            "\(messages)")
        #expect(messages.first?.hasSuffix("(and 1 later chunk of its 3)") == true, "\(messages)")
        let cut = try Self.inspect(movie + B.bigEndian(1000) + Array("mdat".utf8) + [UInt8](repeating: 0, count: 92))
        #expect(
            cut.damage.findings.map(\.message).contains {
                $0.hasPrefix("the 'mdat' box at byte \(movie.count) claims 1000 bytes but only 100 are left")
            }, "\(cut.damage.findings)")
    }

    @Test func aZeroTimescaleAndAMissingMovieHeaderAreFindings() throws {
        let zero = B.fullBox("mvhd", [UInt8](repeating: 0, count: 96))
        let inspection = try Self.inspect(B.fileType + B.box("moov", zero))
        #expect(inspection.damage.findings.map(\.code) == [.invalidInput])
        #expect(inspection.damage.findings.first?.message.contains("timescale of 0") == true)
        let headless = try Self.inspect(B.fileType + B.box("moov", B.track([])))
        #expect(
            headless.damage.findings.map(\.message) == [
                "the 'moov' box has no 'mvhd' (movie header), so its timing is unknown"
            ])
    }

    /// An `stsz` shorter than its count: libav reads the missing sizes from the boxes after it (the
    /// chunks never reach them), so the file plays; refused only when the rest of the file could not
    /// hold the entries.
    @Test func aTableShorterThanItsCountIsAFindingWhileTheFileCouldHoldIt() throws {
        let short = B.fullBox("stsz", B.bigEndian(0) + B.bigEndian(6) + B.bigEndian(100) + B.bigEndian(100))
        let tables = B.sampleToChunk(samplesPerChunk: 2) + short + B.chunkOffsets([200])
        let inspection = try Self.inspect(B.movie(B.track(tables)) + B.box("mdat", [UInt8](repeating: 0, count: 300)))
        #expect(inspection.damage.findings.map(\.code) == [.invalidInput])
        #expect(
            inspection.damage.findings.first?.message.contains(
                "'stsz' box declares 6 entries, 24 bytes of them, but holds only 8 bytes of entries") == true,
            "\(inspection.damage.findings)")
        let huge = B.fullBox("stsz", B.bigEndian(0) + B.bigEndian(.max))
        let error = try Self.refusal(B.movie(B.track(huge)))
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message.hasSuffix("more than the rest of the file holds") == true, "\(String(describing: error))")
    }

    /// A box that claims more than its parent holds is read as libav reads it, cut to its parent.
    @Test func aChildLargerThanItsParentIsCutToIt() throws {
        let tables = Self.samples + B.chunkOffsets([200])
        var track = B.track(tables)
        // The `mdia` inside claims 4 bytes more than its `trak` has left.
        let grown = UInt32(track.count - 8 + 4)
        track.replaceSubrange(8..<12, with: B.bigEndian(grown))
        let inspection = try Self.inspect(B.movie(track) + B.box("mdat", [UInt8](repeating: 0, count: 300)))
        #expect(inspection.damage.findings.map(\.code) == [.invalidInput])
        #expect(inspection.damage.findings.first?.message.contains("'mdia' box inside 'trak'") == true)
    }

    @Test func whatLibavCannotReadOrMustNotBeGivenIsRefusedAllTheSame() throws {
        #expect(try Self.refusal(B.fileType + B.box("free"))?.message.contains("no 'moov'") == true)
        let cmov = try Self.refusal(B.movie(B.box("cmov", B.box("dcom", Array("zlib".utf8)))))
        #expect(cmov?.code == .unsupportedFormat)
        let tracks = try Self.refusal(B.movie((0..<1001).flatMap { _ in B.box("trak") }))
        #expect(tracks?.message.contains("more than 1000 tracks") == true, "\(String(describing: tracks))")
        let run = B.fullBox("trun", flags: 0, B.bigEndian(.max))
        let fragment = B.box("moof", B.box("traf", B.fullBox("tfhd", flags: 0x2_0000, B.bigEndian(1)) + run))
        #expect(try Self.refusal(B.movie([]) + fragment)?.message.contains("more than the file's") == true)
    }

    /// Each fragment's runs count toward their stream's declared samples: what libav's index cannot say
    /// once the reading stopped at a cut.
    @Test func fragmentRunsPastTheEndAreTruncatedAndCounted() throws {
        let trackHeader = B.fullBox(
            "tkhd", [UInt8](repeating: 0, count: 8) + B.bigEndian(7) + [UInt8](repeating: 0, count: 68))
        let movie = B.fileType + B.box("moov", B.movieHeader + B.box("trak", trackHeader))
        func fragment(_ offset: UInt32) -> [UInt8] {
            let run = B.fullBox(
                "trun", flags: 0x201, B.bigEndian(2) + B.bigEndian(offset) + B.bigEndian(50) + B.bigEndian(50))
            return B.box("moof", B.box("traf", B.fullBox("tfhd", flags: 0x2_0000, B.bigEndian(7)) + run))
        }
        let first = fragment(0)
        let whole = first + B.box("mdat", [UInt8](repeating: 0, count: 100))
        let inspection = try Self.inspect(movie + whole + fragment(1_000_000))
        #expect(inspection.fragmented)
        #expect(inspection.damage.declaredFragmentSamples == [0: 4])
        #expect(inspection.damage.findings.map(\.code) == [.truncatedInput])
    }
}
